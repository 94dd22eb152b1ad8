#include "pty/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace blaude::pty {

Resolved resolve_command(const std::string& name, const std::string& path_env) {
  Resolved r;
  auto check = [&](const std::string& p) -> int {  // 0 ok, else errno-ish
    struct stat st;
    if (stat(p.c_str(), &st) != 0) return ENOENT;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (access(p.c_str(), X_OK) != 0) return EACCES;
    return 0;
  };
  if (name.empty()) {
    r.exit_code = 127;
    r.message = "'': command not found";
    return r;
  }
  if (name.find('/') != std::string::npos) {
    int e = check(name);
    if (e == 0) {
      r.path = name;
    } else if (e == ENOENT) {
      r.exit_code = 127;
      r.message = name + ": No such file or directory";
    } else {
      r.exit_code = 126;
      r.message = name + (e == EISDIR ? ": Is a directory" : ": Permission denied");
    }
    return r;
  }
  int best = ENOENT;
  size_t start = 0;
  while (start <= path_env.size()) {
    size_t end = path_env.find(':', start);
    if (end == std::string::npos) end = path_env.size();
    std::string dir = path_env.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string p = dir + "/" + name;
    int e = check(p);
    if (e == 0) {
      r.path = p;
      return r;
    }
    if (e != ENOENT) best = e;
    start = end + 1;
  }
  if (best == ENOENT) {
    r.exit_code = 127;
    r.message = name + ": command not found";
  } else {
    r.exit_code = 126;
    r.message = name + ": Permission denied";
  }
  return r;
}

int exit_code_from_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

namespace {

struct ExecArgs {
  std::vector<std::string> storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  char** env = nullptr;
};

ExecArgs prepare(const Command& cmd) {
  ExecArgs a;
  for (const auto& s : cmd.argv) a.argv.push_back(const_cast<char*>(s.c_str()));
  a.argv.push_back(nullptr);
  if (cmd.env) {
    for (const auto& s : *cmd.env) a.envp.push_back(const_cast<char*>(s.c_str()));
    a.envp.push_back(nullptr);
    a.env = a.envp.data();
  } else {
    a.env = environ;
  }
  return a;
}

// Runs in the forked child: only async-signal-safe calls from here on.
void close_other_fds(int keep_err, const std::vector<int>& keep) {
  int max = static_cast<int>(sysconf(_SC_OPEN_MAX));
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; ++fd) {
    if (fd == keep_err) continue;
    bool kept = false;
    for (int k : keep) kept |= (k == fd);
    if (kept) {
      int fl = fcntl(fd, F_GETFD);
      if (fl >= 0) fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
      continue;
    }
#ifdef SYS_close_range
    // Close the run up to the next kept fd in one call where the kernel has close_range.
    int next = max;
    for (int k : keep) if (k > fd && k < next) next = k;
    if (keep_err > fd && keep_err < next) next = keep_err;
    if (syscall(SYS_close_range, fd, next - 1, 0) == 0) {
      fd = next - 1;
      continue;
    }
#endif
    close(fd);
  }
}

void reset_signals() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int s = 1; s < NSIG; ++s) {
    if (sigaction(s, &sa, nullptr) != 0) {
      // glibc refuses its internal signals (32, 33); an inherited "ignore" must still go.
      struct {
        void* handler;
        unsigned long flags;
        void* restorer;
        unsigned long mask;
      } k{};
      syscall(SYS_rt_sigaction, s, &k, nullptr, sizeof k.mask);
    }
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void exec_or_report(const std::string& path, ExecArgs& a, int err_fd) {
  execve(path.c_str(), a.argv.data(), a.env);
  int e = errno;
  ssize_t n = write(err_fd, &e, sizeof e);
  (void)n;
  _exit(e == ENOENT ? 127 : 126);
}

// Waits for the child's exec: EOF on the close-on-exec pipe means it happened.
int read_exec_errno(int fd) {
  int e = 0;
  ssize_t n;
  do {
    n = read(fd, &e, sizeof e);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof e) ? e : 0;
}

}  // namespace

Child spawn_on_pty(const std::string& path, const Command& cmd, const termios* modes,
                   const winsize* size) {
  Child c;
  UniqueFd master(posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master || grantpt(master.get()) != 0 || unlockpt(master.get()) != 0) {
    c.exec_errno = errno ? errno : EIO;
    return c;
  }
  char name[128];
  if (ptsname_r(master.get(), name, sizeof name) != 0) {
    c.exec_errno = errno;
    return c;
  }
  UniqueFd slave(open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave) {
    c.exec_errno = errno;
    return c;
  }
  if (modes) tcsetattr(slave.get(), TCSANOW, modes);
  if (size) ioctl(slave.get(), TIOCSWINSZ, size);

  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) {
    c.exec_errno = errno;
    return c;
  }
  ExecArgs a = prepare(cmd);
  pid_t pid = fork();
  if (pid < 0) {
    c.exec_errno = errno;
    close(errpipe[0]);
    close(errpipe[1]);
    return c;
  }
  if (pid == 0) {
    close(errpipe[0]);
    reset_signals();
    setsid();
    ioctl(slave.get(), TIOCSCTTY, 0);
    for (int fd = 0; fd < 3; ++fd) dup2(slave.get(), fd);
    close_other_fds(errpipe[1], cmd.keep_fds);
    exec_or_report(path, a, errpipe[1]);
  }
  close(errpipe[1]);
  slave.reset();  // the master sees EIO only once every slave holder is gone
  c.pid = pid;
  c.exec_errno = read_exec_errno(errpipe[0]);
  close(errpipe[0]);
  int fl = fcntl(master.get(), F_GETFL);
  fcntl(master.get(), F_SETFL, fl | O_NONBLOCK);
  c.master = std::move(master);
  return c;
}

Child spawn_plain(const std::string& path, const Command& cmd) {
  Child c;
  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) {
    c.exec_errno = errno;
    return c;
  }
  ExecArgs a = prepare(cmd);
  pid_t pid = fork();
  if (pid < 0) {
    c.exec_errno = errno;
    close(errpipe[0]);
    close(errpipe[1]);
    return c;
  }
  if (pid == 0) {
    close(errpipe[0]);
    reset_signals();
    close_other_fds(errpipe[1], cmd.keep_fds);
    exec_or_report(path, a, errpipe[1]);
  }
  close(errpipe[1]);
  c.pid = pid;
  c.exec_errno = read_exec_errno(errpipe[0]);
  close(errpipe[0]);
  return c;
}

}  // namespace blaude::pty
