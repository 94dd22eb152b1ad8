#include <string>

#include "catch.hpp"
#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/policy/toolchains.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using blaude::sandbox::testing::test_context;

namespace {

PolicyResult parse(const std::string& text) { return parse_policy(text, "/p/.blaude", test_context()); }

std::string first_error(const std::string& text) {
  auto r = parse(text);
  return r.ok() ? std::string() : r.errors.front().why;
}

}  // namespace

TEST_CASE("policy: the xclaude grammar is accepted and expanded", "[policy]") {
  auto r = parse(
      "# comment line\n"
      "\n"
      "tool node   # trailing comment\n"
      "allow-read ~/.config/special\n"
      "  allow-write ./local/.share/  \n"
      "allow-exec /opt/custom/bin\n"
      "allow-read ~/My Documents/notes\r\n");
  REQUIRE(r.ok());
  REQUIRE(r.policy.tools.size() == 1);
  CHECK(r.policy.tools[0].name == "node");
  CHECK(r.policy.tools[0].origin == "/p/.blaude:3");
  Grants own;
  for (const auto& g : r.policy.grants)
    if (g.origin.rfind("tool", 0) != 0) own.push_back(g);
  REQUIRE(own.size() == 3);
  CHECK(own[0].access == Access::Read);
  CHECK(own[0].path == "/Users/alice/.config/special");
  CHECK(own[0].origin == "/p/.blaude:4");
  CHECK(own[1].access == Access::Exec);
  CHECK(own[1].path == "/opt/custom/bin");
  CHECK(own[2].path == "/Users/alice/My Documents/notes");
  // ./local/.share is inside the project: already writable, so no second mount of it.
  REQUIRE(r.policy.notes.size() == 1);
  CHECK(r.policy.notes[0].find("/p/.blaude:5: ./local/.share/ is inside the project") == 0);
}

TEST_CASE("policy: every rejection names file:line and why", "[policy]") {
  auto r = parse("allow-read ~/ok\nallow-read ~/x\")\nfrobnicate ~/y\n");
  REQUIRE(r.errors.size() == 2);
  CHECK(r.errors[0].file == "/p/.blaude");
  CHECK(r.errors[0].line == 2);
  CHECK(r.errors[0].why.find("quote") != std::string::npos);
  CHECK(r.errors[1].line == 3);
  CHECK(r.errors[1].why.find("unknown directive") != std::string::npos);
  CHECK(r.policy.grants.empty());  // a rejected file grants nothing, not "the good lines"
}

TEST_CASE("policy: strict path rules", "[policy]") {
  struct Case {
    const char* line;
    const char* why;  // substring of the error
  };
  const Case cases[] = {
      {"allow-read ~/x\")  (allow file-write* (subpath \"/", "quote"},
      {"allow-read ~/it's", "quote"},
      {"allow-read ~/a(b", "parenthesis"},
      {"allow-read ~/a)b", "parenthesis"},
      {"allow-read ~/a\\b", "backslash"},
      {"allow-read ~/a\tb\x01", "control"},
      {"allow-read ~/a\x7f", "control"},
      {"allow-read ~/\xef" "config", "UTF-8"},
      {"allow-read ~/a\xc2\x9b", "control"},
      {"allow-read ~/a/../.ssh", "'..' segments"},
      {"allow-read ~/a/./b", "'.' segments"},
      {"allow-read ~/a//b", "empty path segment"},
      {"allow-read ~", "must start"},
      {"allow-read ~/", "bare ~"},
      {"allow-read .", "must start"},
      {"allow-read ./", "bare ."},
      {"allow-write /", "whole file system"},
      {"allow-read //", "whole file system"},
      {"allow-read relative/path", "must start"},
      {"allow-read ~alice/x", "must start"},
      {"allow-read /Users", "$HOME or one of its ancestors"},
      {"allow-write /Users/alice", "$HOME or one of its ancestors"},
      {"allow-read /Users/alice/", "$HOME or one of its ancestors"},
      {"allow-read /usr", "whole system tree"},
      {"allow-write /usr/local/lib", "cannot be made writable"},
      {"allow-write /etc/hosts", "cannot be made writable"},
      {"allow-write /opt/homebrew/bin", "cannot be made writable"},
      {"allow-read /proc/self/environ", "kernel"},
      {"allow-exec /dev/sda", "kernel"},
      {"allow-read ~/.config/blaude/trusted", "blaude's own configuration"},
      {"allow-read ~/.config/blaude", "blaude's own configuration"},
      {"allow-write ~/.config", "blaude's own configuration"},
      {"allow-read ~/.ssh", "credentials"},
      {"allow-read ~/.ssh/id_ed25519", "credentials"},
      {"allow-read ~/.aws/credentials", "credentials"},
      {"allow-write ~/.gnupg", "credentials"},
      {"allow-write ~/.bashrc", "persists"},
      {"allow-write ~/.zshrc", "persists"},
      {"allow-write ~/.config/autostart/x.desktop", "persists"},
      {"allow-write ~/Library/LaunchAgents", "persists"},
      {"allow-write ~/Library", "persists"},
      {"allow-write ~/.local/bin", "persists"},
      {"allow-write ~/.local", "persists"},
      {"allow-write ~/.cargo/bin/cargo", "persists"},
      {"allow-write ~/tools/bin", "host PATH"},
      {"allow-write ~/tools", "host PATH"},
      {"allow-write ~/src", "contains the project"},
      {"allow-read ./.blaude", "policy file"},
      {"allow-write ./sub/.xclaude", "policy file"},
      {"allow-read", "needs a path"},
      {"tool", "needs a name"},
      {"tool nosuchtool", "unknown tool"},
      {"tool ../node", "invalid tool name"},
      {"pack mine", "not supported"},
      {"deny ~/x", "only tool and allow-*"},
      {"(allow default)", "only tool and allow-*"},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto why = first_error(c.line);
    CHECK(why.find(c.why) != std::string::npos);
  }
}

TEST_CASE("policy: reads of places that are only write-protected are fine", "[policy]") {
  for (const char* ok : {"allow-read ~/.bashrc", "allow-exec ~/.local/bin/tool",
                         "allow-read ~/src", "allow-read ~/Library/Caches/x",
                         "allow-write ./.git", "allow-write /Users/alice/src/app",
                         "allow-write ~/.cache/thing", "allow-exec /usr/local/opt/jdk",
                         "allow-read ~/.config/blaudex"}) {
    INFO(ok);
    CHECK(first_error(ok).empty());
  }
}

TEST_CASE("policy: grants inside the project are ignored, with a note", "[policy]") {
  // A separate mount of ./.git would be a second, unprotected path to .git/hooks (the xclaude
  // ordering attack, in its bwrap form): such lines grant nothing.
  for (const char* line : {"allow-write ./.git", "allow-write /Users/alice/src/app",
                           "allow-write /Users/alice/src/app/.git/hooks", "allow-exec ./x",
                           "allow-read ./docs"}) {
    INFO(line);
    auto r = parse(line);
    REQUIRE(r.ok());
    CHECK(r.policy.grants.empty());
    REQUIRE(r.policy.notes.size() == 1);
    CHECK(r.policy.notes[0].find("ignored") != std::string::npos);
  }
  CHECK(parse("allow-write /Users/alice/src/app2").policy.grants.size() == 1);  // a sibling
}

TEST_CASE("policy: normalised grants merge, imply and order by risk", "[policy]") {
  auto r = parse("allow-read ~/a\nallow-write ~/a\nallow-read ~/b\nallow-exec ~/c\n"
                 "allow-read ~/b\n");
  REQUIRE(r.ok());
  auto g = policy_grants(r.policy);
  REQUIRE(g.size() == 3);
  CHECK((g[0].access == Access::Exec && g[0].path == "/Users/alice/c"));
  CHECK((g[1].access == Access::Write && g[1].path == "/Users/alice/a"));
  CHECK((g[2].access == Access::Read && g[2].path == "/Users/alice/b"));
  CHECK(g[2].origin == "/p/.blaude:3, /p/.blaude:5");
}

TEST_CASE("policy: user then project policies merge", "[policy]") {
  auto user = parse_policy("allow-read ~/u\n", "/cfg/policy", test_context());
  auto proj = parse("tool gh\n");
  REQUIRE(user.ok());
  REQUIRE(proj.ok());
  auto g = policy_grants(merge_policies(user.policy, proj.policy));
  REQUIRE(g.size() == 2);
  CHECK(g[0].path == "/Users/alice/.config/gh");
  CHECK(g[0].origin == "tool gh (/p/.blaude:1)");
  CHECK(g[1].origin == "/cfg/policy:1");
}

TEST_CASE("path_within compares whole components", "[policy]") {
  CHECK(path_within("/a/b", "/a"));
  CHECK(path_within("/a", "/a"));
  CHECK_FALSE(path_within("/ab", "/a"));
  CHECK(path_within("/x", "/"));
  CHECK_FALSE(path_within("/a", "/a/b"));
}
