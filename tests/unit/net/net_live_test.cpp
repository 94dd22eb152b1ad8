// `blaude net log` / `blaude net allow`, the pure half: where sessions listen, which session a
// command means, what a request line asks; and the command line that selects them.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/parse.hpp"
#include "net/live.hpp"

using namespace blaude;
using namespace blaude::net;

TEST_CASE("net live: the control sockets' directory is only under /run", "[net]") {
  std::string why;
  CHECK(live_dir("/run/user/1000", why) == "/run/user/1000/blaude");
  CHECK(live_dir("/run/user/1000/", why) == "/run/user/1000/blaude");
  CHECK(live_dir("", why).empty());
  CHECK(why == "$XDG_RUNTIME_DIR is not set, and there is no /run/user/UID of yours with mode 0700");
  // Anywhere else a sandbox may see it (the default mode shares /tmp, $HOME is partly visible).
  CHECK(live_dir("/tmp/runtime-u", why).empty());
  CHECK(why.find("is not under /run") != std::string::npos);
  CHECK(live_dir("/run/../tmp/x", why).empty());
  CHECK(live_dir("relative", why).empty());
}

TEST_CASE("net live: socket names and the session a command means", "[net]") {
  CHECK(live_socket_name(4242) == "net-4242.sock");
  CHECK(live_socket_pid("net-4242.sock") == 4242);
  CHECK(live_socket_pid("net-.sock") == -1);
  CHECK(live_socket_pid("net-0042.sock") == -1);
  CHECK(live_socket_pid("net-12a.sock") == -1);
  CHECK(live_socket_pid("other") == -1);
  CHECK(std::get<long>(pick_session({77}, 0)) == 77);
  CHECK(std::get<long>(pick_session({77, 12}, 12)) == 12);
  CHECK(std::get<std::string>(pick_session({}, 0)) == "no blaude session in proxy mode is running");
  CHECK(std::get<std::string>(pick_session({77, 12}, 0)) ==
        "2 blaude sessions in proxy mode are running (pids 12, 77); say which with --session PID");
  CHECK(std::get<std::string>(pick_session({77}, 5)) == "no blaude session in proxy mode has pid 5");
}

TEST_CASE("net live: request lines", "[net]") {
  CHECK(std::get<LiveRequest>(parse_live_request("log")).kind == LiveRequest::Kind::Log);
  auto a = std::get<LiveRequest>(parse_live_request("allow example.com:443"));
  CHECK(a.kind == LiveRequest::Kind::Allow);
  CHECK(a.pattern == "example.com:443");
  CHECK(std::get<std::string>(parse_live_request("allow a b")) == "one pattern per request: a b");
  CHECK(std::get<std::string>(parse_live_request("allow ")) == "unknown request: allow ");
  CHECK(std::get<std::string>(parse_live_request("deny x")) == "unknown request: deny x");
}

TEST_CASE("net live: what a client is sent is one line of plain text, bounded", "[net]") {
  CHECK(live_line("refused GET example.com:80: not allowed") == "refused GET example.com:80: not allowed");
  CHECK(live_line("a\x1b]0;title\x07" "b\nc") == "a\\e]0;title\\x07b\\nc");
  CHECK(live_line("\xe2\x80\xae") == "\\u202e");  // right-to-left override
  const std::string long_host(2000, 'a');
  CHECK(live_line(long_host).size() == kMaxLiveLine);
  CHECK(live_line(long_host).ends_with("..."));
  // Cut at a character boundary.
  std::string wide;
  for (int i = 0; i < 400; ++i) wide += "\xc3\xa9";
  const std::string cut = live_line(wide);
  CHECK(cut.size() <= kMaxLiveLine);
  CHECK(cut.substr(0, cut.size() - 3).size() % 2 == 0);
}

TEST_CASE("net live: the runtime dir without $XDG_RUNTIME_DIR", "[net]") {
  CHECK(live_runtime_dir("/run/user/7", 1000, true) == "/run/user/7");
  CHECK(live_runtime_dir("", 1000, true) == "/run/user/1000");
  CHECK(live_runtime_dir("", 1000, false).empty());
}

TEST_CASE("cli: blaude net log and net allow", "[net][cli]") {
  auto o = std::get<cli::Options>(cli::parse({"net", "allow", "Example.COM:443", "--session", "4242"}));
  CHECK(o.action == cli::Action::Net);
  CHECK(o.net_command == "allow");
  CHECK(o.net_pattern == "example.com:443");
  CHECK(o.net_session == 4242);
  auto l = std::get<cli::Options>(cli::parse({"net", "log"}));
  CHECK(l.net_command == "log");
  CHECK(l.net_session == 0);
  auto err = [](std::vector<std::string> a) { return std::get<cli::UsageError>(cli::parse(a)).message; };
  CHECK(err({"net"}) == "net: say sessions, log or allow");
  CHECK(std::get<cli::Options>(cli::parse({"net", "sessions"})).net_command == "sessions");
  CHECK(err({"net", "sessions", "--session", "5"}) == "net sessions lists them all: --session is for log and allow");
  CHECK(err({"net", "sessions", "x"}) == "net sessions: unexpected argument 'x'");
  CHECK(err({"net", "allow"}) == "net allow needs a PATTERN");
  CHECK(err({"net", "deny", "x"}) == "net: unknown command 'deny' (sessions, log or allow)");
  CHECK(err({"net", "log", "--session", "0x1"}) == "--session: not a pid: '0x1'");
  CHECK(err({"net", "log", "extra"}) == "net log: unexpected argument 'extra'");
  CHECK(err({"net", "allow", "a.example", "b.example"}) == "net allow: unexpected argument 'b.example'");
  // The same words as --allow-domain's.
  CHECK(err({"net", "allow", "http://x"}) == "net allow \"http://x\": it is a URL, not a host (drop the scheme: write x)");
  CHECK(std::get<cli::UsageError>(cli::parse({"--allow-domain", "http://x"})).message ==
        "--allow-domain \"http://x\": it is a URL, not a host (drop the scheme: write x)");
  // After `--` it is claude's prompt, as with doctor.
  CHECK(std::get<cli::Options>(cli::parse({"--", "net", "log"})).action == cli::Action::Run);
}
