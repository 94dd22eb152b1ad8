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
#include <string>
#include <vector>

#include "app/run.hpp"
#include "common/host_env.hpp"
#include "common/unique_fd.hpp"
#include "net/live.hpp"

namespace blaude::app {

namespace {

// The sessions whose socket is there and whose process still runs.
std::vector<long> running_sessions(const std::string& dir) {
  std::vector<long> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    long pid = net::live_socket_pid(e->d_name);
    if (pid <= 0) continue;
    struct stat st{};
    if (::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0) out.push_back(pid);
  }
  ::closedir(d);
  return out;
}

}  // namespace

Outcome run_net_command(const cli::Options& o) {
  const HostEnv host = HostEnv::read();
  std::string why;
  const std::string dir = net::live_dir(host.get("XDG_RUNTIME_DIR"), why);
  if (dir.empty())
    return Failure{"net " + o.net_command + ": no session can be reached: " + why,
                   "Sessions listen in $XDG_RUNTIME_DIR/blaude (such as /run/user/" + std::to_string(host.uid) +
                       "/blaude), where no sandbox sees them; run blaude and this command with it set."};
  auto picked = net::pick_session(running_sessions(dir), o.net_session);
  if (auto* e = std::get_if<std::string>(&picked))
    return Failure{"net " + o.net_command + ": " + *e + " (looked in " + dir + ")",
                   "Sessions in proxy mode (--allow-domain, --publish, or a policy's allow-domain) started with this "
                   "$XDG_RUNTIME_DIR are listed there."};
  const long pid = std::get<long>(picked);
  const std::string path = dir + "/" + net::live_socket_name(pid);
#ifdef __linux__
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
#else
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  if (fd) ::fcntl(fd.get(), F_SETFD, FD_CLOEXEC);
#endif
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (!fd || path.size() >= sizeof sa.sun_path) return Failure{"net " + o.net_command + ": cannot reach " + path, ""};
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
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
          return Failure{"net " + o.net_command + ": session " + std::to_string(pid) + ": " + line.substr(7), ""};
        std::fprintf(o.net_command == "log" ? stderr : stdout, "blaude: %s\n", line.substr(line.starts_with("ok: ") ? 4 : 0).c_str());
        if (o.net_command != "log") return 0;
        continue;
      }
      std::fprintf(stdout, "%s\n", line.c_str());
      std::fflush(stdout);
    }
  }
  if (first)
    return Failure{"net " + o.net_command + ": session " + std::to_string(pid) + " closed the connection unanswered",
                   "It accepts only your own user outside any sandbox; its log says why."};
  return 0;  // `log`: the session ended
}

}  // namespace blaude::app
