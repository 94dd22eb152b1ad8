// The bwrap planner in proxy mode: the request's network arguments after the mounts, the relay
// wrapper in front of the command, and the mount-order invariant still holding.
#include <string>
#include <vector>

#include "bwrap/mount_order_check.hpp"
#include "catch.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/plan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::testing;
using Argv = std::vector<std::string>;

TEST_CASE("bwrap net: proxy mode's arguments and the relay wrapper", "[net]") {
  SandboxRequest req;
  req.proxy = NetworkProxy{{"--unshare-net", "--dir", "/run/blaude", "--ro-bind", "/usr/bin/blaude", "/run/blaude/blaude"},
                           {"/run/blaude/blaude", "__net-relay", "--listen", "3128", "--control-fd", "5", "--"}};
  auto p = plan(req, typical_host());
  const auto& a = p.argv;
  CHECK(count(a, "--unshare-net") == 1);
  long tmpfs_run = find(a, {"--tmpfs", "/run"});
  long bind = find(a, {"--ro-bind", "/usr/bin/blaude", "/run/blaude/blaude"});
  REQUIRE(tmpfs_run >= 0);
  CHECK(bind > tmpfs_run);  // after the /run tmpfs, or it would hide the relay's binary
  long dashes = find(a, {"--", "/run/blaude/blaude", "__net-relay"});
  REQUIRE(dashes > bind);
  CHECK(find(a, {"--control-fd", "5", "--", "claude", "--dangerously-skip-permissions"}) == long(a.size()) - 5);
  check_mount_order(p);
  auto plain = plan(SandboxRequest{}, typical_host());
  CHECK_FALSE(mentions(plain.argv, "__net-relay"));
  CHECK_FALSE(mentions(plain.argv, "--unshare-net"));
}
