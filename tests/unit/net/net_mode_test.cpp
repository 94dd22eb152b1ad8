// Proxy mode as data: the env, the bwrap arguments, the relay's argv both ways, the loopback
// forwards a policy implies and the port conflicts; and the service's start/stop on real sockets.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "net/fdpass.hpp"
#include "net/mode.hpp"
#include "net/service.hpp"

using namespace blaude;
using namespace blaude::net;

namespace {

Policy policy(std::vector<std::string> pats) {
  Policy p;
  for (auto& s : pats) p.rules.push_back({std::get<Pattern>(parse_pattern(s)), Origin::CommandLine, "--allow-domain"});
  return p;
}

}  // namespace

TEST_CASE("net mode: the proxy variables", "[net]") {
  auto env = proxy_env();
  REQUIRE(env.size() == 8);
  CHECK(env[0] == std::pair<std::string, std::string>{"HTTP_PROXY", "http://127.0.0.1:3128"});
  CHECK(env[5] == std::pair<std::string, std::string>{"all_proxy", "socks5h://127.0.0.1:3128"});
  CHECK(env[6] == std::pair<std::string, std::string>{"NO_PROXY", "localhost,127.0.0.1,::1"});
}

TEST_CASE("net mode: loopback forwards", "[net]") {
  auto f = loopback_forwards(policy({"localhost:3000", "127.0.0.1:41234", "[::1]:9000", "localhost", "10.0.0.5:22",
                                     "example.com:80", "[::ffff:127.0.0.2]:7000", "127.0.0.1:3000"}));
  REQUIRE(f.size() == 4);
  CHECK(f[0].port == 3000);
  CHECK(f[0].connect_to == "localhost:3000");
  CHECK(f[0].binds == std::vector<std::string>{"127.0.0.1", "::1"});
  CHECK(f[1].connect_to == "127.0.0.1:41234");
  CHECK(f[1].binds == std::vector<std::string>{"127.0.0.1"});
  CHECK(f[2].binds == std::vector<std::string>{"::1"});
  CHECK(f[3].binds == std::vector<std::string>{"127.0.0.2"});
}

TEST_CASE("net mode: plan and relay argv round trip", "[net]") {
  ModeInputs in;
  in.policy = policy({"127.0.0.1:41234", "api.example.com:443", "git.example.com:2222", "db.example:8080"});
  in.publish = {8080, 5173};
  in.host_exe = "/usr/local/bin/blaude";
  in.control_token = "7";
  ModePlan m = plan_mode(in);
  // No socket is bound in: the relay reaches the proxy only through the control channel. The
  // capabilities are the relay's set-up's (it drops them); resolv.conf and hosts are capture's.
  CHECK(m.bwrap_args == std::vector<std::string>{"--unshare-net", "--dir", "/run/blaude", "--ro-bind",
                                                  "/usr/local/bin/blaude", "/run/blaude/blaude",
                                                  "--cap-add", "CAP_NET_ADMIN", "--cap-add", "CAP_NET_BIND_SERVICE",
                                                  "--cap-add", "CAP_SETPCAP",
                                                  "--ro-bind-data", "@fd:net-resolv", "/etc/resolv.conf",
                                                  "--ro-bind-data", "@fd:net-hosts", "/etc/hosts"});
  REQUIRE(m.data.size() == 2);
  CHECK(m.data[0].second.find("\nnameserver 127.0.0.53\n") != std::string::npos);
  CHECK(m.data[1].second.starts_with("127.0.0.1 localhost\n"));
  auto argv = m.wrap({"claude", "--dangerously-skip-permissions", "--", "-x"});
  // Captured: 22, 80, 443 and the rules' ports, but not a forwarded or a published one.
  CHECK(argv == std::vector<std::string>{"/run/blaude/blaude", "__net-relay",
                                         "--listen", "3128", "--forward", "41234=127.0.0.1:41234@127.0.0.1",
                                         "--control-fd", "7", "--publish", "8080", "--publish", "5173",
                                         "--capture", "22", "--capture", "80", "--capture", "443", "--capture", "2222",
                                         "--dns", "127.0.0.53", "--",
                                         "claude", "--dangerously-skip-permissions", "--", "-x"});
  auto back = parse_relay_args(std::vector<std::string>(argv.begin() + 2, argv.end()));
  REQUIRE(std::holds_alternative<RelaySpec>(back));
  const RelaySpec& s = std::get<RelaySpec>(back);
  CHECK(s.command == std::vector<std::string>{"claude", "--dangerously-skip-permissions", "--", "-x"});
  CHECK(s.publish == std::vector<uint16_t>{8080, 5173});
  CHECK(s.control_fd == 7);
  REQUIRE(s.forwards.size() == 1);
  CHECK(s.forwards[0].connect_to == "127.0.0.1:41234");
  CHECK(s.capture == std::vector<uint16_t>{22, 80, 443, 2222});
  CHECK(s.dns == "127.0.0.53");
  CHECK(std::get<std::string>(parse_relay_args({"--dns", "::1", "--control-fd", "3", "--", "a"})) ==
        "--dns: not an IPv4 address: ::1");
  CHECK(std::get<std::string>(parse_relay_args({"--capture", "0", "--control-fd", "3", "--", "a"})) ==
        "--capture: not a port: 0");
  CHECK(std::get<std::string>(parse_relay_args({"--listen", "x", "--", "a"})) == "--listen: not a port: x");
  CHECK(std::get<std::string>(parse_relay_args({"--listen", "1", "--", "a"})) ==
        "no --control-fd: the relay reaches the proxy only through it");
  CHECK(std::get<std::string>(parse_relay_args({"--socket", "/run/blaude/proxy.sock", "--control-fd", "3", "--", "a"})) ==
        "unknown option --socket");
  // Without --publish the channel is still there: it is how the relay reaches the proxy.
  ModeInputs plain;
  plain.host_exe = "/usr/local/bin/blaude";
  plain.control_token = "9";
  plain.capture = false;  // a setuid bwrap: no capabilities, no capture
  CHECK(plan_mode(plain).bwrap_args.size() == 6);
  CHECK(plan_mode(plain).data.empty());
  CHECK(plan_mode(plain).wrap({"true"}) ==
        std::vector<std::string>{"/run/blaude/blaude", "__net-relay", "--listen", "3128", "--control-fd", "9", "--", "true"});
  CHECK(std::get<std::string>(parse_relay_args({"--listen", "1"})) == "no -- before the command");
  CHECK(std::get<std::string>(parse_relay_args({"--"})) == "no command after --");
  CHECK(std::get<std::string>(parse_relay_args({"--bogus", "1", "--", "a"})) == "unknown option --bogus");
}

TEST_CASE("net mode: port conflicts are usage errors", "[net]") {
  CHECK(check_ports(policy({"localhost:3000"}), {8080}).empty());
  CHECK(check_ports(policy({"localhost:3000"}), {3000}) ==
        "--publish 3000 and --allow-domain localhost:3000 both want port 3000 inside the sandbox");
  CHECK(check_ports(policy({}), {3128}) == "--publish 3128: that port is blaude's proxy inside the sandbox");
  CHECK(check_ports(policy({"127.0.0.1:3128"}), {}) ==
        "--allow-domain 127.0.0.1:3128: port 3128 inside the sandbox is blaude's proxy");
}

TEST_CASE("net service: binds before the session, says what is in use, serves only its channel", "[net][engine]") {
  // A host port that is taken: publishing it fails with a clear error.
  int busy = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(busy, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  ::listen(busy, 1);
  socklen_t len = sizeof sa;
  ::getsockname(busy, reinterpret_cast<sockaddr*>(&sa), &len);
  uint16_t port = ntohs(sa.sin_port);
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
  ServiceConfig cfg;
  cfg.publish = {port};
  cfg.control_fd = sv[0];
  auto r = Service::start(cfg);
  REQUIRE(std::holds_alternative<std::string>(r));
  CHECK(std::get<std::string>(r) == "cannot publish port " + std::to_string(port) + ": 127.0.0.1:" +
                                        std::to_string(port) + ": address already in use");
  ::close(busy);

  ServiceConfig none;
  auto no_channel = Service::start(none);
  REQUIRE(std::holds_alternative<std::string>(no_channel));
  CHECK(std::get<std::string>(no_channel) == "no control channel for the relay");

  cfg.publish = {};
  auto ok = Service::start(cfg);
  REQUIRE(std::holds_alternative<std::unique_ptr<Service>>(ok));
  auto& svc = std::get<std::unique_ptr<Service>>(ok);
  // The relay's request is answered with a connection to the proxy, which refuses (no rules).
  REQUIRE(send_message(sv[1], ChannelKind::Request, 1) == 0);
  pollfd p{sv[1], POLLIN, 0};
  REQUIRE(::poll(&p, 1, 5000) == 1);
  Received a = receive_message(sv[1], true);
  REQUIRE(a.err == 0);
  CHECK(a.value == 1);
  REQUIRE(a.fd);
  const std::string req = "CONNECT example.com:443 HTTP/1.1\r\n\r\n";
  REQUIRE(::write(a.fd.get(), req.data(), req.size()) == ssize_t(req.size()));
  pollfd q{a.fd.get(), POLLIN, 0};
  REQUIRE(::poll(&q, 1, 5000) == 1);
  char buf[64];
  ssize_t n = ::read(a.fd.get(), buf, sizeof buf);
  CHECK(std::string(buf, size_t(std::max<ssize_t>(0, n))).starts_with("HTTP/1.1 403 "));
  svc->stop();
  CHECK(svc->summary_line() == "blaude: refused 1 connection: example.com:443; allow with --allow-domain");
  ::close(sv[0]);
  ::close(sv[1]);
}
