// `clipboard-paste` in the policy language: no grant, the value and where it was said.
#include <string>

#include "catch.hpp"
#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using blaude::sandbox::testing::test_context;

TEST_CASE("policy: clipboard-paste lines", "[policy]") {
  auto r = parse_policy("# mine\nclipboard-paste off\n", "/u/policy", test_context());
  REQUIRE(r.ok());
  CHECK(r.policy.grants.empty());
  CHECK(r.policy.clipboard_paste == "off");
  CHECK(r.policy.clipboard_paste_origin == "/u/policy:2");
  CHECK(parse_policy("clipboard-paste text\n", "/u/policy", test_context()).policy.clipboard_paste == "text");
  CHECK_FALSE(parse_policy("clipboard-paste\n", "/u/policy", test_context()).ok());
  CHECK_FALSE(parse_policy("clipboard-paste on\n", "/u/policy", test_context()).ok());
  CHECK_FALSE(parse_policy("clipboard-paste always\n", "/u/policy", test_context()).ok());
  CHECK_FALSE(parse_policy("clipboard-paste off\nclipboard-paste text\n", "/u/policy", test_context()).ok());
}
