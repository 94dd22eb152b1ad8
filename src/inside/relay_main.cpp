// The shell of the relay wrapper (see inside/relay_main.hpp): sockets, fork, exec.
#include "inside/relay_main.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/pipe.hpp"
#include "common/platform.hpp"
#include "common/unique_fd.hpp"
#include "inside/relay.hpp"
#include "net/dns.hpp"

namespace blaude::inside {

using net::Forward;
using net::RelaySpec;
using net::parse_relay_args;

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "blaude: network relay: %s\n", what.c_str());
  return 1;
}

// A listening TCP socket on addr:port; -errno on failure.
int listen_on(const std::string& addr, uint16_t port) {
  sockaddr_storage ss{};
  socklen_t len;
  bool v6 = addr.find(':') != std::string::npos;
  if (v6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    if (inet_pton(AF_INET6, addr.c_str(), &s6->sin6_addr) != 1) return -EINVAL;
    len = sizeof *s6;
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    if (inet_pton(AF_INET, addr.c_str(), &s4->sin_addr) != 1) return -EINVAL;
    len = sizeof *s4;
  }
  UniqueFd fd(make_socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, true));
  if (!fd) return -errno;
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (v6) ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd.get(), 511) != 0) return -errno;
  return fd.release();
}

// A bound UDP socket on addr:53 (the capture's DNS); -errno on failure.
int dns_socket(const std::string& addr) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(53);
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) return -EINVAL;
  UniqueFd fd(make_socket(AF_INET, SOCK_DGRAM, true));
  if (!fd) return -errno;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return -errno;
  return fd.release();
}

#ifdef __linux__
// `ip addr add 198.18.0.1/15 dev lo` in the sandbox's own namespace (the relay has CAP_NET_ADMIN
// there until drop_capabilities). On the loopback device the kernel makes the whole prefix
// local, so a connection to any synthetic address reaches the capture listeners; and the
// namespace then has an IPv4 address other than 127.0.0.1, without which getaddrinfo's
// AI_ADDRCONFIG (getent ahosts, many runtimes) returns no IPv4 answer at all. "" or why not.
std::string address_capture_range() {
  UniqueFd nl(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!nl) return std::string("netlink: ") + std::strerror(errno);
  struct {
    nlmsghdr h;
    ifaddrmsg a;
    char attrs[64];
  } req{};
  const int lo = int(::if_nametoindex("lo"));
  if (lo == 0) return "no loopback interface";
  req.h.nlmsg_len = NLMSG_LENGTH(sizeof(ifaddrmsg));
  req.h.nlmsg_type = RTM_NEWADDR;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
  req.h.nlmsg_seq = 1;
  req.a.ifa_family = AF_INET;
  req.a.ifa_prefixlen = 15;
  req.a.ifa_scope = RT_SCOPE_HOST;
  req.a.ifa_index = unsigned(lo);
  auto add = [&](unsigned short type, const void* data, size_t len) {
    auto* a = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(&req) + NLMSG_ALIGN(req.h.nlmsg_len));
    a->rta_type = type;
    a->rta_len = (unsigned short)RTA_LENGTH(len);
    std::memcpy(RTA_DATA(a), data, len);
    req.h.nlmsg_len = NLMSG_ALIGN(req.h.nlmsg_len) + RTA_ALIGN(a->rta_len);
  };
  const uint32_t addr = htonl(net::dns::AddressMap::kBase + 1);
  add(IFA_LOCAL, &addr, sizeof addr);
  add(IFA_ADDRESS, &addr, sizeof addr);
  if (::send(nl.get(), &req, req.h.nlmsg_len, 0) < 0) return std::string("netlink: ") + std::strerror(errno);
  char buf[512];
  ssize_t n = ::recv(nl.get(), buf, sizeof buf, 0);
  if (n < ssize_t(NLMSG_LENGTH(sizeof(nlmsgerr)))) return "netlink: no answer";
  auto* h = reinterpret_cast<nlmsghdr*>(buf);
  if (h->nlmsg_type != NLMSG_ERROR) return "netlink: an unexpected answer";
  int err = reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
  return err == 0 ? "" : std::strerror(-err);
}

// The capabilities bwrap gave for the set-up (proxy mode's --cap-add) end here, before the relay
// runs and before CMD: none left in any set, and none in the bounding set, so no exec regains one.
std::string drop_capabilities() {
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  for (int c = 0; c <= 63; ++c)
    if (::prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1) ::prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[2]{};
  if (::syscall(SYS_capset, &h, d) != 0) return std::string("capset: ") + std::strerror(errno);
  if (::syscall(SYS_capget, &h, d) != 0) return std::string("capget: ") + std::strerror(errno);
  for (const auto& x : d)
    if (x.effective || x.permitted || x.inheritable) return "capabilities remain after dropping them";
  for (int c = 0; c <= 63; ++c)
    if (::prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1) return "the bounding set keeps capability " + std::to_string(c);
  return "";
}
#endif

// Each relayed connection holds two sockets, and a pipe (two descriptors) for each direction
// while its destination is full: raise the soft limit as far as the hard one allows and size
// the connection limit to it, so a flood meets the limit, not EMFILE.
size_t connection_budget() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rlim_t want = std::min<rlim_t>(rl.rlim_max, 65536);
    if (want > rl.rlim_cur) {
      rl.rlim_cur = want;
      ::setrlimit(RLIMIT_NOFILE, &rl);
    }
    ::getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur > 128) return std::min<size_t>(4096, size_t(rl.rlim_cur - 64) / 6);
  }
  return 32;
}

// The relay process: its own session (no terminal, so no Ctrl-C), not dumpable, stdio on
// /dev/null, and only its own descriptors open.
[[noreturn]] void become_relay(const RelayConfig& cfg) {
  ::setsid();
#ifdef __linux__
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  // proxy mode is Linux-only (macOS refuses it at decide)
#endif
  for (int s : {SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE}) ::signal(s, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    for (int i = 0; i < 3; ++i) ::dup2(null, i);
    if (null > 2) ::close(null);
  }
  std::vector<int> keep;
  for (const auto& l : cfg.listeners) keep.push_back(l.fd);
  keep.push_back(cfg.control_fd);
  if (cfg.dns_fd >= 0) keep.push_back(cfg.dns_fd);
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
#if BLAUDE_LINUX_CALLS
  auto close_from_to = [](unsigned lo, unsigned hi) { ::close_range(lo, hi, 0); };
#else
  // No close_range (macOS): a loop up to the fd limit.
  rlimit rl{};
  unsigned lim = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? unsigned(rl.rlim_cur) : 65536u;
  auto close_from_to = [lim](unsigned lo, unsigned hi) {
    for (unsigned fd = lo; fd <= hi && fd < lim; ++fd) ::close(int(fd));
  };
#endif
  for (int k : keep) {
    if (unsigned(k) > from) close_from_to(from, unsigned(k) - 1);
    from = unsigned(k) + 1;
  }
  close_from_to(from, ~0u);
  if (::chdir("/") != 0) {
  }
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("relay", std::make_shared<spdlog::sinks::null_sink_mt>()));
  RelayConfig mine = cfg;
  mine.max_connections = connection_budget();  // here, not before the fork: CMD keeps its limit
  ::_exit(run_relay(mine));
}


}  // namespace

int relay_main(const std::vector<std::string>& args, const ExecCommand& exec) {
  auto parsed = parse_relay_args(args);
  if (auto* e = std::get_if<std::string>(&parsed)) return fail(*e);
  RelaySpec spec = std::get<RelaySpec>(std::move(parsed));
  RelayConfig cfg;
  cfg.control_fd = spec.control_fd;
  // The channel must be the socket blaude gave: a descriptor of any other kind reaches nothing.
  int type = 0;
  socklen_t tl = sizeof type;
  if (::getsockopt(cfg.control_fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_SEQPACKET)
    return fail("--control-fd " + std::to_string(cfg.control_fd) + " is not blaude's control channel");
  cfg.published = spec.publish;
  int fd = listen_on("127.0.0.1", spec.proxy_port);
  if (fd < 0) return fail("cannot listen on 127.0.0.1:" + std::to_string(spec.proxy_port) + ": " + std::strerror(-fd));
  cfg.listeners.push_back({fd, ""});
  for (const Forward& f : spec.forwards) {
    bool any = false;
    for (const std::string& b : f.binds) {
      int lf = listen_on(b, f.port);
      if (lf >= 0) {
        cfg.listeners.push_back({lf, f.connect_to});
        any = true;
      }
    }
    if (!any) return fail("cannot listen on port " + std::to_string(f.port) + " for " + f.connect_to);
  }
  if (!spec.capture.empty() || !spec.dns.empty()) {
#ifdef __linux__
    if (std::string why = address_capture_range(); !why.empty())
      return fail("cannot give the capture range 198.18.0.0/15 to the loopback device: " + why);
    const std::string dns = spec.dns.empty() ? net::kCaptureDns : spec.dns;
    int dfd = dns_socket(dns);
    if (dfd < 0) return fail("cannot answer DNS on " + dns + ":53: " + std::strerror(-dfd));
    cfg.dns_fd = dfd;
    for (uint16_t port : spec.capture) {
      int cf = listen_on("0.0.0.0", port);
      if (cf < 0) return fail("cannot capture port " + std::to_string(port) + ": " + std::strerror(-cf));
      cfg.listeners.push_back({cf, "", true});
    }
#else
    return fail("transparent capture needs Linux");
#endif
  }
#ifdef __linux__
  // Whether or not bwrap gave any: CMD and the relay run with none.
  if (std::string why = drop_capabilities(); !why.empty()) return fail(why);
#endif
  ::fcntl(cfg.control_fd, F_SETFD, FD_CLOEXEC);  // CMD must not inherit it

  pid_t p = ::fork();
  if (p < 0) return fail(std::string("fork: ") + std::strerror(errno));
  if (p == 0) {
    if (::fork() != 0) ::_exit(0);  // the grandchild is the relay; init adopts it
    become_relay(cfg);
  }
  int st;
  while (::waitpid(p, &st, 0) < 0 && errno == EINTR) {
  }
  for (const auto& l : cfg.listeners) ::close(l.fd);
  ::close(cfg.control_fd);
  if (cfg.dns_fd >= 0) ::close(cfg.dns_fd);

  return exec(spec.command);
}

int exec_command_path(std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (auto& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  int err = errno;
  std::fprintf(stderr, "blaude: %s: %s\n", command[0].c_str(), err == ENOENT ? "command not found" : std::strerror(err));
  return err == ENOENT ? 127 : 126;
}

}  // namespace blaude::inside
