#include "ptyproc.hpp"

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace ptybench {

namespace {

constexpr unsigned kTicksPerSecond = 4;
volatile sig_atomic_t g_ticks = 0;

// A blocking read costs the driver one syscall per chunk and nothing else: one interval timer
// (SIGALRM without SA_RESTART, 4 per second) interrupts a syscall that waits, and the waiter
// compares ticks. (Arming alarm() around every read tripled the driver's syscalls per chunk.)
void install_ticker() {
  static bool done = false;
  if (done) return;
  done = true;
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_ticks = g_ticks + 1; };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGALRM, &sa, nullptr);
  itimerval it{};
  it.it_interval.tv_usec = 1000000 / kTicksPerSecond;
  it.it_value = it.it_interval;
  setitimer(ITIMER_REAL, &it, nullptr);
}

bool expired(long start, unsigned timeout_s) {
  return static_cast<unsigned long>(g_ticks - start) >= timeout_s * kTicksPerSecond;
}

}  // namespace

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

PtyProc::PtyProc(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                 winsize ws) {
  install_ticker();
  int m, s;
  if (openpty(&m, &s, nullptr, nullptr, &ws) != 0)
    throw BenchError(std::string("openpty: ") + std::strerror(errno));
  termios t;
  tcgetattr(s, &t);
  cfmakeraw(&t);  // the driver is a terminal that alters nothing (no ONLCR on the way out)
  tcsetattr(s, TCSANOW, &t);
  fcntl(m, F_SETFD, FD_CLOEXEC);

  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) throw BenchError("pipe2 failed");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  spawned_ns_ = now_ns();
  pid_t pid = fork();
  if (pid < 0) throw BenchError("fork failed");
  if (pid == 0) {
    setsid();
    ioctl(s, TIOCSCTTY, 0);
    dup2(s, 0);
    dup2(s, 1);
    dup2(s, 2);
    if (s > 2) close(s);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGALRM, SIG_DFL);
    for (const auto& kv : extra_env) putenv(const_cast<char*>(kv.c_str()));
    execvp(args[0], args.data());
    int e = errno;
    (void)!write(errpipe[1], &e, sizeof e);
    _exit(127);
  }
  close(s);
  close(errpipe[1]);
  master_ = m;
  pid_ = pid;
  int e = 0;
  ssize_t n = read(errpipe[0], &e, sizeof e);
  close(errpipe[0]);
  if (n == sizeof e) {
    throw BenchError("cannot run " + argv[0] + ": " + std::strerror(e));
  }
}

PtyProc::~PtyProc() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (master_ >= 0) close(master_);
}

size_t PtyProc::read_some(char* buf, size_t len, unsigned timeout_s) {
  long start = g_ticks;
  for (;;) {
    ssize_t n = read(master_, buf, len);
    if (n > 0) return static_cast<size_t>(n);
    if (n < 0 && errno == EINTR) {
      if (expired(start, timeout_s))
        throw BenchError("no output for " + std::to_string(timeout_s) + " s");
      continue;
    }
    return 0;  // EIO: every slave holder is gone
  }
}

std::string PtyProc::read_until(std::string_view marker, std::string& rest, unsigned timeout_s) {
  std::string seen;
  char buf[4096];
  for (;;) {
    size_t pos = seen.find(marker);
    if (pos != std::string::npos) {
      rest = seen.substr(pos + marker.size());
      seen.resize(pos);
      return seen;
    }
    if (seen.size() > 65536) throw BenchError("no marker in the first 64 KiB of output");
    size_t n = read_some(buf, sizeof buf, timeout_s);
    if (n == 0) throw BenchError("output ended before the marker; got: " + seen.substr(0, 200));
    seen.append(buf, n);
  }
}

void PtyProc::write_all(std::string_view s) {
  while (!s.empty()) {
    ssize_t n = write(master_, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw BenchError(std::string("write to the pty: ") + std::strerror(errno));
    s.remove_prefix(static_cast<size_t>(n));
  }
}

size_t PtyProc::drain() {
  char buf[65536];
  size_t total = 0;
  while (size_t n = read_some(buf, sizeof buf)) total += n;
  return total;
}

int PtyProc::wait(rusage& ru, unsigned timeout_s) {
  int st = 0;
  long start = g_ticks;
  for (;;) {
    pid_t r = wait4(pid_, &st, 0, &ru);
    if (r == pid_) break;
    if (r < 0 && errno == EINTR && !expired(start, timeout_s)) continue;
    throw BenchError("process " + std::to_string(pid_) + " did not exit");
  }
  pid_ = -1;
  return st;
}

long vm_hwm_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

}  // namespace ptybench
