// `blaude net log` and `blaude net allow PATTERN`, from another terminal: reach the running
// session in proxy mode through its control socket (net/live_control.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "app/network.hpp"
#include "app/run.hpp"
#include "common/host_env.hpp"
#include "common/unique_fd.hpp"
#include "net/live.hpp"

namespace blaude::app {

namespace {

UniqueFd unix_stream() {
#ifdef __linux__
  return UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
#else
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  if (fd) ::fcntl(fd.get(), F_SETFD, FD_CLOEXEC);
  return fd;
#endif
}

// A connected socket to `path`, or none with errno set.
UniqueFd connect_to(const std::string& path) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof sa.sun_path) {
    errno = ENAMETOOLONG;
    return UniqueFd();
  }
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  UniqueFd fd = unix_stream();
  if (!fd) return fd;
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return UniqueFd();
  return fd;
}

// The sessions whose socket answers a connect. A socket nobody listens on (ECONNREFUSED) is
// what a session killed before it could clean up leaves: it is removed here. A pid alone says
// nothing (the kernel reuses them), so the connect decides. The probe's connection is closed
// unasked, which the session takes as a client gone.
std::vector<long> running_sessions(const std::string& dir) {
  std::vector<long> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    long pid = net::live_socket_pid(e->d_name);
    if (pid <= 0) continue;
    const std::string path = dir + "/" + e->d_name;
    if (connect_to(path)) {
      out.push_back(pid);
    } else if (errno == ECONNREFUSED) {
      struct stat st{};
      if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == ::getuid()) ::unlink(path.c_str());
    }
  }
  ::closedir(d);
  return out;
}

}  // namespace

Outcome run_net_command(const cli::Options& o) {
  const HostEnv host = HostEnv::read();
  std::string why;
  const std::string dir = net::live_dir(control_runtime_dir(host.get("XDG_RUNTIME_DIR")), why);
  if (dir.empty())
    return Failure{"net " + o.net_command + ": no session can be reached: " + why,
                   "Sessions listen in $XDG_RUNTIME_DIR/blaude (such as /run/user/" + std::to_string(host.uid) +
                       "/blaude), where no sandbox sees them; run blaude and this command with it set."};
  const std::vector<long> running = running_sessions(dir);
  if (o.net_command == "sessions") {
    // One pid a line on stdout (for scripts); where they were looked for on stderr.
    std::vector<long> sorted = running;
    std::sort(sorted.begin(), sorted.end());
    for (long p : sorted) std::printf("%ld\n", p);
    std::fprintf(stderr, "blaude: %zu blaude %s in proxy mode running (in %s)\n", sorted.size(),
                 sorted.size() == 1 ? "session" : "sessions", dir.c_str());
    return 0;
  }
  auto picked = net::pick_session(running, o.net_session);
  if (auto* e = std::get_if<std::string>(&picked))
    return Failure{"net " + o.net_command + ": " + *e + " (looked in " + dir + ")",
                   "Sessions in proxy mode (--allow-domain, --publish, or a policy's allow-domain) started with this "
                   "$XDG_RUNTIME_DIR are listed there (blaude net sessions)."};
  const long pid = std::get<long>(picked);
  const std::string path = dir + "/" + net::live_socket_name(pid);
  UniqueFd fd = connect_to(path);
  if (!fd)
    return Failure{"net " + o.net_command + ": cannot reach session " + std::to_string(pid) + " at " + path + ": " +
                       std::strerror(errno),
                   ""};
  const std::string req = (o.net_command == "log" ? std::string("log") : "allow " + o.net_pattern) + "\n";
#ifdef __linux__
  constexpr int kNoSignal = MSG_NOSIGNAL;
#else
  constexpr int kNoSignal = 0;  // none there: a session gone mid-request may end this with SIGPIPE
#endif
  if (::send(fd.get(), req.data(), req.size(), kNoSignal) != ssize_t(req.size()))
    return Failure{"net " + o.net_command + ": session " + std::to_string(pid) + " closed the connection", ""};
  // Line by line: the first is the session's answer; for `log`, refusals follow until it ends.
  std::string buf;
  bool first = true;
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, size_t(n));
    for (size_t nl; (nl = buf.find('\n')) != std::string::npos;) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (first) {
        first = false;
        if (line.starts_with("error: "))
          return Failure{"net " + o.net_command + ": session " + std::to_string(pid) + ": " + net::live_line(line.substr(7)),
                         ""};
        std::fprintf(o.net_command == "log" ? stderr : stdout, "blaude: %s\n",
                     net::live_line(line.substr(line.starts_with("ok: ") ? 4 : 0)).c_str());
        if (o.net_command != "log") return 0;
        continue;
      }
      // The session made it safe already; again here, so nothing but plain text reaches the
      // terminal whatever is at the other end.
      std::fprintf(stdout, "%s\n", net::live_line(line).c_str());
      std::fflush(stdout);
    }
    // A line that never ends: bounded all the same.
    if (buf.size() > 2 * net::kMaxLiveLine) buf.erase(net::kMaxLiveLine);
  }
  if (first)
    return Failure{"net " + o.net_command + ": session " + std::to_string(pid) + " closed the connection unanswered",
                   "It accepts only your own user outside any sandbox; its log says why."};
  return 0;  // `log`: the session ended
}

}  // namespace blaude::app
