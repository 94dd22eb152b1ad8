// `ssh-agent` and `ssh-key` in the policy language: no grants, only where they were said.
#include <string>

#include "catch.hpp"
#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using blaude::sandbox::testing::test_context;

TEST_CASE("policy: ssh-agent and ssh-key lines", "[policy]") {
  auto r = parse_policy("ssh-agent\nssh-key SHA256:abc\nssh-key me @ laptop  # a comment with blanks\n", "/u/policy",
                        test_context());
  REQUIRE(r.ok());
  CHECK(r.policy.grants.empty());
  CHECK(r.policy.ssh_agent == "/u/policy:1");
  REQUIRE(r.policy.ssh_keys.size() == 2);
  CHECK(r.policy.ssh_keys[0].key == "SHA256:abc");
  CHECK(r.policy.ssh_keys[1].key == "me @ laptop");
  CHECK(r.policy.ssh_keys[1].origin == "/u/policy:3");
  CHECK_FALSE(parse_policy("ssh-agent yes\n", "/u/policy", test_context()).ok());
  CHECK_FALSE(parse_policy("ssh-key\n", "/u/policy", test_context()).ok());
}
