#include "net/netns.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/nsfs.h>
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/file_io.hpp"
#include "common/pipe.hpp"
#include "common/platform.hpp"
#include "net/relay_argv.hpp"

namespace blaude::net {

NetnsChoice choose_netns(const NetnsFacts& f) {
  NetnsChoice c;
  if (f.landlock_abi >= 6 || f.bwrap_setuid) return c;  // scoped, or said by the planner
  const std::string open = "this kernel's Landlock (ABI " + std::to_string(f.landlock_abi) +
                           ", scoping needs 6: Linux 6.12+) cannot keep the sandbox from the host's abstract unix "
                           "sockets (the X server's @/tmp/.X11-unix/X*, an abstract D-Bus bus), and ";
  if (f.switch_value == "off") {
    c.warning = open + "BLAUDE_NETNS=off keeps the host's network: they are reachable. --no-network closes them";
  } else if (f.pasta.empty()) {
    c.warning = open + "pasta is not installed: they are reachable. Install it (apt install passt, dnf install "
                       "passt) and the sandbox gets a network namespace of its own with the same network; "
                       "--no-network closes them meanwhile";
  } else if (!f.tun_problem.empty()) {
    c.warning = open + "pasta cannot run here (" + f.tun_problem + "): they are reachable. /dev/net/tun is "
                       "normally crw-rw-rw- (sudo chmod 666 /dev/net/tun); --no-network closes them meanwhile";
  } else {
    c.isolate = true;
  }
  return c;
}

namespace {
std::vector<std::string> nameservers(const std::string& resolv) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < resolv.size()) {
    size_t end = resolv.find('\n', at);
    if (end == std::string::npos) end = resolv.size();
    std::string line = resolv.substr(at, end - at);
    at = end + 1;
    const size_t k = line.find_first_not_of(" \t");
    if (k == std::string::npos || line.compare(k, 10, "nameserver") != 0) continue;
    const size_t v = line.find_first_not_of(" \t", k + 10);
    if (v == std::string::npos || v == k + 10) continue;
    out.push_back(line.substr(v, line.find_first_of(" \t\r", v) - v));
  }
  return out;
}
}  // namespace

std::string netns_resolv(const std::string& host_resolv, const std::string& upstream) {
  const auto host = nameservers(host_resolv);
  if (host.empty()) return "";
  for (const auto& ns : host)
    if (ns.rfind("127.", 0) != 0 || ns == "127.0.0.1") return "";  // reachable from the namespace
  for (const auto& ns : nameservers(upstream))
    if (ns.rfind("127.", 0) != 0 && ns != "::1") return upstream;
  return "";
}

std::vector<std::string> netns_bwrap_args(const std::string& host_exe) {
  return {"--unshare-net", "--dir", kSandboxDir, "--ro-bind", host_exe, kSandboxExe};
}

std::vector<std::string> netns_prefix(const std::string& token) { return {kSandboxExe, kNetnsCommand, token, "--"}; }

std::vector<std::string> pasta_argv(const std::string& pasta, int userns_fd, int netns_fd, int pid_fd) {
  const auto fd = [](int n) { return "/proc/self/fd/" + std::to_string(n); };
  // -f: blaude's child, never a daemon left behind. -t none -u none: nothing of the host's is
  // opened to the sandbox's listeners (as a namespace of the host's network would, and
  // unlike it they would listen on every address). -T auto -U auto: the host's loopback ports
  // stay reachable at the sandbox's 127.0.0.1 and ::1. --config-net: addresses, routes and
  // the interface up before the pid is written. --no-map-gw: the gateway's address is the
  // gateway (a router's own page), not a second way to the host's loopback.
  return {pasta, "--config-net", "--quiet", "--foreground", "--no-map-gw", "--tcp-ports", "none", "--udp-ports", "none",
          "--tcp-ns", "auto", "--udp-ns", "auto", "--pid", fd(pid_fd), "--userns", fd(userns_fd),
          "--netns", fd(netns_fd)};
}

// ---------------------------------------------------------------------------------------------

namespace {

// One byte ("namespace follows"), the namespace's descriptor. Blocking.
int send_ns(int sock, int fd) {
  char byte = 'N';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = ctl;
  m.msg_controllen = sizeof ctl;
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = ::sendmsg(sock, &m, 0);
  while (n < 0 && errno == EINTR);
  return n == 1 ? 0 : -1;
}

// The namespace's descriptor, or an empty one (EOF: the sandbox ended before asking).
UniqueFd receive_ns(int sock) {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = ctl;
  m.msg_controllen = sizeof ctl;
  ssize_t n;
  do n = ::recvmsg(sock, &m, 0);
  while (n < 0 && errno == EINTR);
  if (n != 1 || byte != 'N') return {};
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
    return {};
  int fd;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return UniqueFd(fd);
}

void send_answer(int sock, char answer) {
#if BLAUDE_LINUX_CALLS
  constexpr int kNoSignal = MSG_NOSIGNAL;
#else
  constexpr int kNoSignal = 0;
#endif
  ssize_t n;
  do n = ::send(sock, &answer, 1, kNoSignal);
  while (n < 0 && errno == EINTR);
}

// Reads what is there until EOF or `deadline` (CLOCK_MONOTONIC ms); appends to `out`.
void read_until(int fd, std::string& out, bool stop_at_newline, long long deadline_ms) {
  char buf[512];
  for (;;) {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    long long left = deadline_ms - (ts.tv_sec * 1000LL + ts.tv_nsec / 1000000);
    if (left <= 0) return;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, int(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    out.append(buf, size_t(n));
    if (stop_at_newline && out.find('\n') != std::string::npos) return;
    if (out.size() > 4096) return;
  }
}

long long now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

}  // namespace

std::variant<std::unique_ptr<NetnsLink>, std::string> NetnsLink::start(const std::string& pasta,
                                                                        const std::string& token,
                                                                        std::vector<std::string>& argv,
                                                                        std::vector<int>& keep_fds) {
  std::unique_ptr<NetnsLink> l(new NetnsLink);
  int sv[2];
  if (make_socketpair(AF_UNIX, SOCK_SEQPACKET, sv) != 0) return "cannot make the network namespace's channel: " + errno_text();
  l->parent_.reset(sv[0]);
  l->child_.reset(sv[1]);
  if (!make_pipe(l->stop_r_, l->stop_w_)) return "cannot make a pipe: " + errno_text();
  keep_fds.push_back(l->child_.get());
  for (auto& a : argv)
    if (a == token) a = std::to_string(l->child_.get());
  l->thread_ = std::thread([p = l.get(), pasta] { p->run(pasta); });
  return l;
}

void NetnsLink::run(std::string pasta) {
#ifdef __linux__
  UniqueFd netns = receive_ns(parent_.get());
  if (!netns) return;  // the sandbox ended before it asked (bwrap failed: it says why)
  const auto t0 = std::chrono::steady_clock::now();
  // The namespace belongs to bwrap's first user namespace (the sandbox runs in a second one,
  // nested, which holds no capability over it): that is the one pasta must join.
  UniqueFd userns(::ioctl(netns.get(), NS_GET_USERNS));
  UniqueFd pid_r, pid_w, err_r, err_w;
  if (!userns) {
    failure_ = "cannot find the namespace's owner: " + errno_text();
  } else if (!make_pipe(pid_r, pid_w) || !make_pipe(err_r, err_w)) {
    failure_ = "cannot make a pipe: " + errno_text();
  }
  pid_t child = -1;
  if (failure_.empty()) {
    std::vector<std::string> args = pasta_argv(pasta, userns.get(), netns.get(), pid_w.get());
    std::vector<char*> cargv;
    for (auto& a : args) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const int pass[] = {userns.get(), netns.get(), pid_w.get()};
    const int err = err_w.get();
    child = ::fork();
    if (child == 0) {
      // Only async-signal-safe calls until the exec (blaude has other threads).
      ::setsid();  // no terminal signal of the user's reaches it
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with this thread, whatever ends blaude
      struct sigaction dfl{};
      dfl.sa_handler = SIG_DFL;
      // pasta refuses to start with SIGPIPE ignored ("Couldn't install signal handlers").
      for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGCHLD, SIGHUP}) ::sigaction(s, &dfl, nullptr);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
      }
      ::dup2(err, 2);
      for (int fd : pass) ::fcntl(fd, F_SETFD, 0);
      ::execv(cargv[0], cargv.data());
      const char msg[] = "cannot run pasta\n";
      (void)!::write(2, msg, sizeof msg - 1);
      ::_exit(127);
    }
    if (child < 0) failure_ = "cannot start pasta: " + errno_text();
  }
  pid_w.reset();
  err_w.reset();
  if (failure_.empty()) {
    // pasta writes its pid once the namespace is set up; it exits (EOF) when it cannot.
    std::string pid;
    read_until(pid_r.get(), pid, true, now_ms() + 20000);
    if (pid.find('\n') == std::string::npos) {
      std::string err;
      ::kill(child, SIGKILL);
      read_until(err_r.get(), err, false, now_ms() + 1000);
      while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
      failure_ = pasta + (err.empty() ? " did not set the namespace up" : ": " + err);
    }
  }
  send_answer(parent_.get(), failure_.empty() ? 'K' : 'E');
  spdlog::info("net: pasta {} the sandbox's namespace in {} us{}", failure_.empty() ? "set up" : "did not set up",
               std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count(),
               failure_.empty() ? "" : ": " + failure_);
  netns.reset();
  userns.reset();
  if (child > 0) {
    if (failure_.empty()) {
      // Until finish(): pasta's death-signal is tied to this thread.
      pollfd p{stop_r_.get(), POLLIN, 0};
      while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
      }
      ::kill(child, SIGTERM);
    }
    int st;
    while (::waitpid(child, &st, 0) < 0 && errno == EINTR) {
    }
  }
#else
  (void)pasta;
  if (receive_ns(parent_.get())) failure_ = "a network namespace of the sandbox's own is Linux's";
  send_answer(parent_.get(), 'E');
#endif
}

std::string NetnsLink::finish() {
  if (thread_.joinable()) {
    // The sandbox is gone: a thread still waiting for its namespace sees EOF.
    child_.reset();
    stop_w_.reset();
    ::shutdown(parent_.get(), SHUT_RDWR);
    thread_.join();
  }
  return failure_;
}

NetnsLink::~NetnsLink() { finish(); }

// ---------------------------------------------------------------------------------------------

int netns_attach_main(const std::vector<std::string>& args, int (*exec)(std::vector<std::string>& command)) {
  if (args.size() < 3 || args[1] != "--") return 2;
  char* end = nullptr;
  long fd = std::strtol(args[0].c_str(), &end, 10);
  if (!end || *end || fd < 0 || fd > 65535) return 2;
  int ns = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (ns < 0 || send_ns(int(fd), ns) != 0) return 1;
  ::close(ns);
  char answer = 0;
  ssize_t n;
  do n = ::read(int(fd), &answer, 1);
  while (n < 0 && errno == EINTR);
  ::close(int(fd));
  if (n != 1 || answer != 'K') return 1;  // the host says why, after the session
  std::vector<std::string> command(args.begin() + 2, args.end());
  return exec(command);
}

}  // namespace blaude::net
