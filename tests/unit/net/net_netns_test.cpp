// The default mode's own network namespace: when it is chosen, what the user is told when it
// cannot be, pasta's command line, and the wait inside refusing what it cannot use.
#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "net/netns.hpp"
#include "net/relay_argv.hpp"

using namespace blaude::net;

namespace {
NetnsFacts old_kernel() { return {5, false, "/usr/bin/pasta", "", ""}; }
bool has(const std::vector<std::string>& v, const std::vector<std::string>& run) {
  for (size_t i = 0; i + run.size() <= v.size(); ++i)
    if (std::equal(run.begin(), run.end(), v.begin() + long(i))) return true;
  return false;
}
}  // namespace

TEST_CASE("netns: only where Landlock cannot scope abstract sockets", "[net]") {
  NetnsFacts f = old_kernel();
  CHECK(choose_netns(f).isolate);
  CHECK(choose_netns(f).warning.empty());
  f.landlock_abi = 0;  // no Landlock at all
  CHECK(choose_netns(f).isolate);
  f.landlock_abi = 6;
  CHECK_FALSE(choose_netns(f).isolate);
  CHECK(choose_netns(f).warning.empty());
  f.landlock_abi = 7;
  CHECK_FALSE(choose_netns(f).isolate);
}

TEST_CASE("netns: setuid bwrap's namespaces are root's: none, and the planner says so", "[net]") {
  NetnsFacts f = old_kernel();
  f.bwrap_setuid = true;
  CHECK_FALSE(choose_netns(f).isolate);
  CHECK(choose_netns(f).warning.empty());
}

TEST_CASE("netns: without a usable pasta, the host's network with a warning that names the fix", "[net]") {
  NetnsFacts f = old_kernel();
  f.pasta = "";
  NetnsChoice c = choose_netns(f);
  CHECK_FALSE(c.isolate);
  CHECK(c.warning.find("ABI 5") != std::string::npos);
  CHECK(c.warning.find("@/tmp/.X11-unix/X") != std::string::npos);
  CHECK(c.warning.find("apt install passt") != std::string::npos);
  f = old_kernel();
  f.tun_problem = "/dev/net/tun: Permission denied";
  c = choose_netns(f);
  CHECK_FALSE(c.isolate);
  CHECK(c.warning.find("/dev/net/tun: Permission denied") != std::string::npos);
  CHECK(c.warning.find("chmod 666 /dev/net/tun") != std::string::npos);
  f = old_kernel();
  f.switch_value = "off";
  c = choose_netns(f);
  CHECK_FALSE(c.isolate);
  CHECK(c.warning.find("BLAUDE_NETNS=off") != std::string::npos);
  f.switch_value = "on";  // anything else: the default
  CHECK(choose_netns(f).isolate);
}

TEST_CASE("netns: bwrap's arguments and the wait in front of the command", "[net]") {
  CHECK(netns_bwrap_args("/opt/b/blaude") ==
        std::vector<std::string>{"--unshare-net", "--dir", kSandboxDir, "--ro-bind", "/opt/b/blaude", kSandboxExe});
  CHECK(netns_prefix("@fd:x") == std::vector<std::string>{kSandboxExe, kNetnsCommand, "@fd:x", "--"});
}

TEST_CASE("netns: pasta joins the namespace by descriptor, forwards only towards the host", "[net]") {
  auto a = pasta_argv("/usr/bin/pasta", 7, 8, 9);
  CHECK(a.front() == "/usr/bin/pasta");
  CHECK(has(a, {"--userns", "/proc/self/fd/7"}));
  CHECK(has(a, {"--netns", "/proc/self/fd/8"}));
  CHECK(has(a, {"--pid", "/proc/self/fd/9"}));
  CHECK(has(a, {"--config-net"}));
  CHECK(has(a, {"--foreground"}));  // blaude's child, never a daemon
  CHECK(has(a, {"--no-map-gw"}));   // the gateway is no way to the host's loopback
  CHECK(has(a, {"--tcp-ports", "none"}));  // nothing of the host's opened to the sandbox
  CHECK(has(a, {"--udp-ports", "none"}));
  CHECK(has(a, {"--tcp-ns", "auto"}));  // the host's loopback ports at the sandbox's
  CHECK(has(a, {"--udp-ns", "auto"}));
}

TEST_CASE("netns: the wait refuses a malformed command line and runs nothing", "[net]") {
  static int ran = 0;
  auto exec = [](std::vector<std::string>&) {
    ++ran;
    return 0;
  };
  CHECK(netns_attach_main({}, exec) == 2);
  CHECK(netns_attach_main({"3", "true"}, exec) == 2);
  CHECK(netns_attach_main({"x3", "--", "true"}, exec) == 2);
  CHECK(netns_attach_main({"-1", "--", "true"}, exec) == 2);
  CHECK(ran == 0);
}

TEST_CASE("netns: a stub resolver on the host's own loopback is replaced by its upstream servers", "[net]") {
  const std::string stub = "# systemd-resolved\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n";
  const std::string upstream = "nameserver 192.168.1.1\nnameserver 2001:db8::1\nsearch lan\n";
  CHECK(netns_resolv(stub, upstream) == upstream);
  CHECK(netns_resolv("nameserver\t127.0.0.53\n", upstream) == upstream);
  // 127.0.0.1 (a dnsmasq or unbound of the host's) is forwarded by pasta: kept.
  CHECK(netns_resolv("nameserver 127.0.0.1\n", upstream).empty());
  CHECK(netns_resolv("nameserver 127.0.0.53\nnameserver 10.0.0.1\n", upstream).empty());
  CHECK(netns_resolv("nameserver 10.0.0.1\n", upstream).empty());
  CHECK(netns_resolv("# nameserver 127.0.0.53\n", upstream).empty());
  // No upstream to name (no systemd-resolved, or it has none): the host's, unchanged.
  CHECK(netns_resolv(stub, "").empty());
  CHECK(netns_resolv(stub, "nameserver 127.0.0.53\n").empty());
  CHECK(netns_resolv(stub, "nameservers 10.0.0.1\n").empty());
}
