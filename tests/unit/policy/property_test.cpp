#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "policy/invariants.hpp"
#include "policy/test_context.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using namespace blaude::sandbox::testing;

TEST_CASE("policy property: accepted files yield only the declared rules", "[policy][property]") {
  const std::vector<std::string> verbs = {"tool", "allow-read", "allow-write", "allow-exec",
                                          "allow-read", "allow-write", "deny", "#", ""};
  const std::vector<std::string> prefixes = {"~/", "./", "/", "", "~", ".", "//", "~/./"};
  const std::vector<std::string> segs = {
      "a", "b c", "..", ".", "", ".ssh", ".config", "blaude", "bin", ".local", "\")", "\n",
      "\t", "(", "\\", "caf\xc3\xa9", ".git", "hooks", ".env", ".blaude", "Users", "alice",
      "src", "app", "usr", "node", "go", "rust", "gh", "x#y", "tools", "Library", "cache"};
  std::mt19937 rng(20260430);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text;
    int lines = 1 + static_cast<int>(rng() % 5);
    for (int l = 0; l < lines; ++l) {
      std::string verb = pick(verbs);
      text += verb;
      if (rng() % 8) text += rng() % 4 ? " " : "\t ";
      if (verb == "tool") {
        text += pick(segs);
      } else {
        text += pick(prefixes);
        int n = static_cast<int>(rng() % 4);
        for (int s = 0; s < n; ++s) text += (s ? "/" : "") + pick(segs);
        if (rng() % 6 == 0) text += "/";
      }
      text += rng() % 10 ? "\n" : "\r\n";
    }
    auto why = check_policy_invariants(text, test_context());
    INFO(text);
    REQUIRE(why == "");
    (parse_policy(text, "/f/.blaude", test_context()).ok() ? accepted : rejected)++;
  }
  // The generator must exercise both sides, or the property says nothing.
  CHECK(accepted > 100);
  CHECK(rejected > 100);
}

TEST_CASE("policy property: the invariant checker notices a violation", "[policy][property]") {
  // Control: tampered parser results must be reported, or the property test proves nothing.
  const auto ctx = test_context();
  const std::string text = "allow-read ~/a\nallow-write ~/b\n";
  auto good = parse_policy(text, "/f/.blaude", ctx);
  REQUIRE(good.ok());
  CHECK(check_parsed(text, ctx, good) == "");
  auto wrong_kind = good;
  wrong_kind.policy.grants[0].access = Access::Write;
  CHECK(check_parsed(text, ctx, wrong_kind) != "");
  auto wrong_path = good;
  wrong_path.policy.grants[1].path = "/Users/alice/c";
  CHECK(check_parsed(text, ctx, wrong_path) != "");
  auto extra = good;
  extra.policy.grants.push_back({Access::Write, "/Users/alice", "/f/.blaude:1"});
  CHECK(check_parsed(text, ctx, extra) != "");
  auto errors_but_grants = good;
  errors_but_grants.errors.push_back({"/f/.blaude", 1, "x"});
  CHECK(check_parsed(text, ctx, errors_but_grants) != "");
  auto in_project = good;
  in_project.policy.grants.push_back({Access::Write, "/Users/alice/src/app/.git", "/f/.blaude:2"});
  CHECK(check_parsed(text, ctx, in_project) != "");
}
