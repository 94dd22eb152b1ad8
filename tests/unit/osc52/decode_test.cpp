// What an intercepted sequence turns into: selections, base64, UTF-8, control stripping; and
// which tool gets it.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "catch.hpp"
#include "osc52/backend.hpp"
#include "osc52/decode.hpp"
#include "osc52/filter.hpp"

using namespace blaude::osc52;

namespace {

Sequence seq(std::string pc, std::string pd, Outcome o = Outcome::Complete) {
  Sequence s;
  s.selection = std::move(pc);
  s.payload = std::move(pd);
  s.outcome = o;
  return s;
}

}  // namespace

TEST_CASE("osc52 decode: Pc to selections", "[osc52]") {
  using T = Target;
  CHECK(parse_targets("") == std::vector<T>{T::Clipboard});
  CHECK(parse_targets("c") == std::vector<T>{T::Clipboard});
  CHECK(parse_targets("s") == std::vector<T>{T::Clipboard});
  CHECK(parse_targets("p") == std::vector<T>{T::Primary});
  CHECK(parse_targets("q") == std::vector<T>{T::Secondary});
  CHECK(parse_targets("pcsc") == std::vector<T>{T::Primary, T::Clipboard});
  CHECK(parse_targets("0") == std::vector<T>{});
  CHECK(parse_targets("7x") == std::vector<T>{});
}

TEST_CASE("osc52 decode: base64 is strict", "[osc52]") {
  CHECK(base64_decode("aGVsbG8=") == std::optional<std::string>("hello"));
  CHECK(base64_decode("aGVsbG8") == std::optional<std::string>("hello"));  // padding optional
  CHECK(base64_decode("aGk=") == std::optional<std::string>("hi"));
  CHECK(base64_decode("") == std::optional<std::string>(""));
  CHECK(base64_decode("+/8=") == std::optional<std::string>("\xfb\xff"));
  CHECK_FALSE(base64_decode("@@@"));
  CHECK_FALSE(base64_decode("aGk"  "\x20" "="));
  CHECK_FALSE(base64_decode("aGk=aGk="));  // padding in the middle
  CHECK_FALSE(base64_decode("a"));         // one stray symbol
  CHECK_FALSE(base64_decode("aGk=="));     // wrong padding length
  CHECK_FALSE(base64_decode("=="));
  CHECK_FALSE(base64_decode("aGk-"));      // base64url is not OSC 52
}

TEST_CASE("osc52 decode: control characters are removed, TAB LF CR kept", "[osc52]") {
  size_t removed = 0;
  CHECK(strip_controls("a\tb\nc\rd", removed) == "a\tb\nc\rd");
  CHECK(removed == 0);
  CHECK(strip_controls("echo hi\x1b[201~\x07\x7f", removed) == "echo hi[201~");
  CHECK(removed == 3);
  removed = 0;
  // C1 controls (U+009B is CSI) go too; other non-ASCII text stays.
  CHECK(strip_controls("x\xc2\x9b" "31m\xc3\xa9\xe2\x9c\x93", removed) == "x31m\xc3\xa9\xe2\x9c\x93");
  CHECK(removed == 1);
  CHECK(valid_utf8("h\xc3\xa9"));
  CHECK_FALSE(valid_utf8("\xff"));
  CHECK_FALSE(valid_utf8("\xc3"));              // truncated
  CHECK_FALSE(valid_utf8("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(valid_utf8("\xc0\xaf"));          // overlong
}

TEST_CASE("osc52 decode: verdicts", "[osc52]") {
  Verdict v = interpret(seq("c", "aGVsbG8="));
  REQUIRE(v.copy);
  CHECK(v.copy->text == "hello");
  CHECK(v.copy->targets == std::vector<Target>{Target::Clipboard});
  CHECK(v.note.empty());

  CHECK_FALSE(interpret(seq("c", "?")).copy);  // a read request is never answered
  CHECK_FALSE(interpret(seq("", "?")).copy);
  CHECK_FALSE(interpret(seq("c", "@@@")).copy);
  CHECK_FALSE(interpret(seq("c", "")).copy);    // would only clear the selection
  CHECK_FALSE(interpret(seq("0", "aGk=")).copy);  // cut buffer
  CHECK_FALSE(interpret(seq("c", "/w==")).copy);  // 0xff: not UTF-8
  CHECK_FALSE(interpret(seq("c", "GxsbGw==")).copy);  // only control characters
  CHECK_FALSE(interpret(seq("c", "aGk=", Outcome::Oversized)).copy);
  CHECK_FALSE(interpret(seq("c", "aGk=", Outcome::Oversized)).copy);

  // Paste-jacking: "ls\e[201~\nrm -rf ~\n" - the ESC that would end bracketed paste is removed
  // and the log note says so.
  Verdict pj = interpret(seq("c", "bHMbWzIwMX4Kcm0gLXJmIH4K"));
  REQUIRE(pj.copy);
  CHECK(pj.copy->text == "ls[201~\nrm -rf ~\n");
  CHECK(pj.copy->removed_controls == 1);
  CHECK(pj.note.find("control") != std::string::npos);
}

TEST_CASE("osc52 backend: chosen from the environment and the tools found", "[osc52]") {
  HostFacts h;
  h.wl_copy = "/u/wl-copy";
  h.xclip = "/u/xclip";
  h.xsel = "/u/xsel";
  h.pbcopy = "/u/pbcopy";
  CHECK(choose_backend(h).tool == Tool::None);  // no display at all: over SSH
  h.display = ":0";
  CHECK(choose_backend(h).tool == Tool::Xclip);
  h.wayland_display = "wayland-0";
  CHECK(choose_backend(h).tool == Tool::WlCopy);
  CHECK(choose_backend(h).path == "/u/wl-copy");
  h.wl_copy.clear();
  CHECK(choose_backend(h).tool == Tool::Xclip);  // Wayland without wl-copy falls back to X11
  h.xclip.clear();
  CHECK(choose_backend(h).tool == Tool::Xsel);
  h.xsel.clear();
  CHECK(choose_backend(h).tool == Tool::None);  // pbcopy only on macOS
  h.macos = true;
  CHECK(choose_backend(h).tool == Tool::Pbcopy);
  h.disabled = true;
  CHECK(choose_backend(h).tool == Tool::None);
  CHECK(configure(h).backend.tool == Tool::None);
  CHECK(configure(h).limits.mode == Mode::PassWrites);  // writes pass, read requests never
}

TEST_CASE("osc52 backend: helper command lines", "[osc52]") {
  using V = std::vector<std::string>;
  Backend xclip{Tool::Xclip, "/x/xclip"};
  CHECK(helper_argv(xclip, Target::Clipboard) == V{"/x/xclip", "-selection", "clipboard", "-in"});
  CHECK(helper_argv(xclip, Target::Primary) == V{"/x/xclip", "-selection", "primary", "-in"});
  CHECK(helper_argv(xclip, Target::Secondary) == V{"/x/xclip", "-selection", "secondary", "-in"});
  Backend xsel{Tool::Xsel, "/x/xsel"};
  CHECK(helper_argv(xsel, Target::Clipboard) == V{"/x/xsel", "--clipboard", "--input"});
  CHECK(helper_argv(xsel, Target::Primary) == V{"/x/xsel", "--primary", "--input"});
  CHECK(helper_argv(xsel, Target::Secondary) == V{"/x/xsel", "--secondary", "--input"});
  Backend wl{Tool::WlCopy, "/w/wl-copy"};
  CHECK(helper_argv(wl, Target::Clipboard) == V{"/w/wl-copy"});
  CHECK(helper_argv(wl, Target::Primary) == V{"/w/wl-copy", "--primary"});
  CHECK(helper_argv(wl, Target::Secondary).empty());
  Backend pb{Tool::Pbcopy, "/p/pbcopy"};
  CHECK(helper_argv(pb, Target::Primary) == V{"/p/pbcopy"});
}

TEST_CASE("osc52 backend: PATH search finds executables only", "[osc52]") {
  char tmpl[] = "/tmp/blaude-osc52-path.XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  std::string dir = tmpl;
  std::ofstream(dir + "/plain") << "x";
  std::ofstream(dir + "/tool") << "#!/bin/sh\n";
  chmod((dir + "/tool").c_str(), 0755);
  mkdir((dir + "/adir").c_str(), 0755);
  CHECK(find_program("tool", "relative:" + dir) == dir + "/tool");
  CHECK(find_program("plain", dir).empty());
  CHECK(find_program("adir", dir).empty());
  CHECK(find_program("missing", dir + "::/nonexistent").empty());
  unlink((dir + "/plain").c_str());
  unlink((dir + "/tool").c_str());
  rmdir((dir + "/adir").c_str());
  rmdir(dir.c_str());
}
