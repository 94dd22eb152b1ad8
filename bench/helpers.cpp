#include "helpers.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "pattern.hpp"

namespace ptybench {

namespace {

bool write_all(int fd, std::string_view s) { return ptybench::write_all(fd, s.data(), s.size()); }

// The helper decides its own tty modes: a proxy may hand it a cooked pty.
void make_raw(int fd) {
  termios t;
  if (tcgetattr(fd, &t) != 0) return;
  cfmakeraw(&t);
  tcsetattr(fd, TCSANOW, &t);
}

}  // namespace

int run_producer(uint64_t bytes, const std::string& report_path, int64_t corrupt_at) {
  make_raw(1);
  // The marker goes out before the table is built (a few ms), so time to first output measures
  // the proxy's start, not ours.
  if (!write_all(1, kStartMarker)) return 1;
  const std::vector<char>& table = pattern_table();
  constexpr size_t kChunk = 64 * 1024;
  uint64_t pos = 0;
  while (pos < bytes) {
    size_t off = pos % kPeriod;
    size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, bytes - pos));
    bool corrupt = corrupt_at >= 0 && static_cast<uint64_t>(corrupt_at) >= pos &&
                   static_cast<uint64_t>(corrupt_at) < pos + n;
    if (corrupt) {
      std::vector<char> copy(table.begin() + static_cast<long>(off),
                             table.begin() + static_cast<long>(off + n));
      char& c = copy[static_cast<size_t>(corrupt_at) - pos];
      c = c == '!' ? '"' : '!';
      if (!write_all(1, copy.data(), n)) return 1;
    } else if (!write_all(1, table.data() + off, n)) {
      return 1;
    }
    pos += n;
  }
  if (!report_path.empty()) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    FILE* f = std::fopen(report_path.c_str(), "w");
    if (!f) return 1;
    std::fprintf(f, "%lld %lld\n",
                 static_cast<long long>(ru.ru_utime.tv_sec) * 1000000 + ru.ru_utime.tv_usec,
                 static_cast<long long>(ru.ru_stime.tv_sec) * 1000000 + ru.ru_stime.tv_usec);
    std::fclose(f);
  }
  return 0;
}

int run_echo() {
  make_raw(0);
  if (!write_all(1, kEchoReady)) return 1;
  char buf[256];
  for (;;) {
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 1;
    auto len = static_cast<size_t>(n);
    char* q = static_cast<char*>(std::memchr(buf, 'q', len));
    if (q) len = static_cast<size_t>(q - buf);
    if (len > 0 && !write_all(1, buf, len)) return 1;
    if (q) return 0;
  }
}

int run_winch() {
  make_raw(0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGWINCH);
  sigprocmask(SIG_BLOCK, &set, nullptr);  // before "ready": no resize can be missed
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  if (sfd < 0) return 1;
  if (!write_all(1, kWinchReady)) return 1;
  pollfd fds[2] = {{sfd, POLLIN, 0}, {0, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si;
      if (read(sfd, &si, sizeof si) != sizeof si) return 1;
      winsize ws{};
      ioctl(0, TIOCGWINSZ, &ws);
      char msg[64];
      int len = std::snprintf(msg, sizeof msg, "<<WS %u %u>>", ws.ws_row, ws.ws_col);
      if (!write_all(1, msg, static_cast<size_t>(len))) return 1;
    }
    if (fds[1].revents) {
      char buf[64];
      ssize_t n = read(0, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || std::memchr(buf, 'q', static_cast<size_t>(n))) return 0;
    }
  }
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}


}  // namespace ptybench
