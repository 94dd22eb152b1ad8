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

int run_producer(const ProducerArgs& a) {
  make_raw(1);
  // Everything is prepared before the first byte: the clock starts at that byte.
  std::vector<char> small;
  const char* base;
  size_t period;
  if (a.bytes <= 65536) {
    small = pattern_prefix(a.payload, static_cast<size_t>(a.bytes));
    base = small.data();
    period = small.size() + 1;  // never wraps
  } else {
    const Pattern& pat = pattern(a.payload);
    base = pat.table.data();
    period = pat.period;
  }
  size_t chunk = std::max<size_t>(1, std::min(a.write_size, period));
  uint64_t pos = 0;
  std::vector<char> copy;
  while (pos < a.bytes) {
    size_t off = pos % period;
    size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, a.bytes - pos));
    const char* p = base + off;
    if (a.corrupt_at >= 0 && static_cast<uint64_t>(a.corrupt_at) >= pos &&
        static_cast<uint64_t>(a.corrupt_at) < pos + n) {
      copy.assign(p, p + n);
      char& c = copy[static_cast<size_t>(a.corrupt_at) - pos];
      c = c == '!' ? '"' : '!';
      p = copy.data();
    }
    if (!write_all(1, p, n)) return 1;
    pos += n;
  }
  if (!a.report_path.empty()) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    FILE* f = std::fopen(a.report_path.c_str(), "w");
    if (!f) return 1;
    std::fprintf(f, "%lld %lld %ld\n",
                 static_cast<long long>(ru.ru_utime.tv_sec) * 1000000 + ru.ru_utime.tv_usec,
                 static_cast<long long>(ru.ru_stime.tv_sec) * 1000000 + ru.ru_stime.tv_usec,
                 ru.ru_nvcsw + ru.ru_nivcsw);
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
