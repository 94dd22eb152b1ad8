#include "sandbox/bwrap/run/userns_watch.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/shown.hpp"
#include "sandbox/launch_plan.hpp"

#if BLAUDE_USERNS_BY_SHIM
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/pipe.hpp"
#endif

namespace blaude::sandbox::bwrap {

std::string userns_exit_line(uint64_t refused, const std::vector<std::string>& names) {
  if (refused == 0) return "";
  std::string who;
  for (const auto& n : names) who += (who.empty() ? "" : ", ") + n;
  return "blaude: the sandbox refused " + std::to_string(refused) + " request(s) for a user namespace of its own" +
         (who.empty() ? "" : " (from " + who + ")") +
         ": nested sandboxes (bwrap, Claude Code's /sandbox, Chromium's) need --nested-sandbox "
         "(nested-sandbox in ~/.config/blaude/policy for every session).";
}

std::vector<std::string> UsernsWatch::names() const {
  std::lock_guard<std::mutex> lock(mu_);
  return names_;
}

#if BLAUDE_USERNS_BY_SHIM

namespace {

// The one message: a byte and exactly one descriptor, which must be a seccomp listener. Anything
// else is closed and ignored (the shim sends nothing else; nothing else can write here).
UniqueFd receive_listener(int sock) {
  char byte;
  struct iovec iov {&byte, 1};
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  struct msghdr m {};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n = ::recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n <= 0) return UniqueFd();
  std::vector<UniqueFd> got;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      got.emplace_back(fd);
    }
  }
  if (got.size() != 1 || (m.msg_flags & MSG_CTRUNC)) return UniqueFd();
  char link[64] = {};
  const std::string self = "/proc/self/fd/" + std::to_string(got[0].get());
  ssize_t l = ::readlink(self.c_str(), link, sizeof link - 1);
  if (l <= 0 || std::string(link, size_t(l)) != "anon_inode:seccomp notify") return UniqueFd();
  return std::move(got[0]);
}

// The program's name as it set it (at most 15 bytes), escaped; "?" when it is gone.
std::string program_name(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/comm";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) return "?";
  char buf[64];
  ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n <= 0) return "?";
  std::string s(buf, size_t(n));
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return shown(s);
}

}  // namespace

std::unique_ptr<UsernsWatch> UsernsWatch::start() {
  std::unique_ptr<UsernsWatch> w(new UsernsWatch());
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::system_error(errno, std::generic_category(), "cannot make the user-namespace socket");
  w->outside_.reset(sv[0]);
  w->inside_.reset(sv[1]);
  if (!make_pipe(w->stop_rd_, w->stop_wr_))
    throw std::system_error(errno, std::generic_category(), "cannot make the user-namespace socket");
  // The thread takes no signal: the supervisor's loop handles them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    w->thread_ = std::thread([p = w.get()] { p->run(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return w;
}

void UsernsWatch::answer(int listener) {
  struct seccomp_notif_sizes sizes {};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return;
  std::vector<char> req_buf(std::max<size_t>(sizes.seccomp_notif, sizeof(struct seccomp_notif)), 0);
  std::vector<char> resp_buf(std::max<size_t>(sizes.seccomp_notif_resp, sizeof(struct seccomp_notif_resp)), 0);
  auto* req = reinterpret_cast<struct seccomp_notif*>(req_buf.data());
  // The call's task may be gone already (ENOENT): nothing to answer.
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) return;
  std::string name = program_name(pid_t(req->pid));
  // The name is the caller's only if the call still waits (its pid was not reused meanwhile).
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0) name = "?";
  auto* resp = reinterpret_cast<struct seccomp_notif_resp*>(resp_buf.data());
  resp->id = req->id;
  resp->error = -EPERM;
  resp->val = 0;
  resp->flags = 0;
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0) return;
  refused_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& n : names_)
    if (n == name) return;
  if (names_.size() < kMaxNames) names_.push_back(name);
}

void UsernsWatch::run() {
  UniqueFd listener;
  bool sock_open = true;
  for (;;) {
    pollfd fds[2] = {{stop_rd_.get(), POLLIN, 0}, {-1, POLLIN, 0}};
    if (listener) fds[1].fd = listener.get();
    else if (sock_open) fds[1].fd = outside_.get();
    int r = ::poll(fds, 2, -1);
    if (r < 0 && errno != EINTR) return;
    if (r <= 0) continue;
    if (fds[0].revents) return;
    if (!fds[1].revents) continue;
    if (listener) {
      if (fds[1].revents & POLLIN) answer(listener.get());
      // Every process the filter was on has ended.
      else if (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL)) listener.reset();
    } else {
      listener = receive_listener(outside_.get());
      if (listener) listening_ = true;
      // One message, whatever it held.
      sock_open = false;
      outside_.reset();
    }
  }
}

std::string UsernsWatch::finish() {
  if (thread_.joinable()) {
    (void)!::write(stop_wr_.get(), "x", 1);
    thread_.join();
  }
  return userns_exit_line(refused(), names());
}

UsernsWatch::~UsernsWatch() { finish(); }

#else

std::unique_ptr<UsernsWatch> UsernsWatch::start() { return nullptr; }
std::string UsernsWatch::finish() { return userns_exit_line(refused(), names()); }
UsernsWatch::~UsernsWatch() = default;
void UsernsWatch::run() {}
void UsernsWatch::answer(int) {}

#endif

}  // namespace blaude::sandbox::bwrap
