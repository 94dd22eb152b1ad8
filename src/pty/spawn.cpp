#include "pty/spawn.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "common/child.hpp"
#include "common/pipe.hpp"
#include "common/platform.hpp"

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

// The child reports on the close-on-exec pipe only when it does not exec: {errno, step}, step
// nonzero when Command::pre_exec failed at it.
[[noreturn]] void exec_or_report(const std::string& path, ExecArgs& a, int err_fd, const PreExec& pre) {
  ChildFailure r;
  if (pre.run) r.err = pre.run(pre.arg, &r.step);
  if (r.err == 0) {
    execve(path.c_str(), a.argv.data(), a.env);
    r.err = errno;
  }
  report_to_parent(err_fd, r);
  _exit(r.step ? 1 : r.err == ENOENT ? 127 : 126);
}

// Waits for the child's exec: EOF on the close-on-exec pipe means it happened.
int read_exec_errno(int fd, int* step) {
  ChildFailure r;
  if (!read_child_report(fd, r)) return 0;
  *step = r.step;
  return r.err;
}

// What the child does between its start and its exec.
template <class Setup>
struct ChildPlan {
  const std::string& path;
  ExecArgs& args;
  const Command& cmd;
  int err_fd;
  Setup& setup;
  ChildSetup child;  // default handlers, an empty mask, only cmd.keep_fds and err_fd
};

template <class Plan>
[[noreturn]] void child_main(Plan& p) {
  p.setup();
  child_prologue(p.child);
  exec_or_report(p.path, p.args, p.err_fd, p.cmd.pre_exec);
}

template <class Plan>
[[noreturn]] int clone_entry(void* p) {
  child_main(*static_cast<Plan*>(p));
}

#if defined(__SANITIZE_ADDRESS__)
#define BLAUDE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLAUDE_SANITIZED 1
#endif
#endif

// On Linux the child shares blaude's memory until its exec, as with vfork(2) or glibc's
// posix_spawn: no page table is copied and blaude takes no copy-on-write faults afterwards
// (both sat on the way to the child's first output: -48 page faults per start). blaude is
// suspended until the child execs or exits (CLONE_VFORK), so the child may read the plan in
// place; it makes syscalls only and allocates nothing. Not posix_spawn itself: glibc's leaves
// its two internal signals (32, 33) ignored in the child, and an ignore survives exec.
// Sanitizer builds fork: they keep per-thread stack state that a foreign stack would confuse.
template <class Plan>
pid_t start_child(Plan& plan) {
#if BLAUDE_LINUX_CALLS && !defined(BLAUDE_SANITIZED)
  constexpr size_t kStack = 64 * 1024;
  std::unique_ptr<char[]> stack(new char[kStack]);
  return clone(clone_entry<Plan>, stack.get() + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
#else
  pid_t pid = fork();
  if (pid == 0) child_main(plan);
  return pid;
#endif
}

// Starts the child with every signal blocked, so that none of blaude's handlers can run in it
// (it would write to the parent's signal pipe) before it has reset them. In the child: `setup`
// (async-signal-safe calls only), default signals, only the kept fds, exec; an exec failure is
// reported through the close-on-exec pipe whose read end lands in `report`.
// Returns the pid, or -1 with the error in exec_errno.
template <class Setup>
pid_t fork_exec(const std::string& path, const Command& cmd, UniqueFd& report, int& exec_errno, Setup setup) {
  UniqueFd rd, wr;
  if (!make_pipe(rd, wr)) {
    exec_errno = errno;
    return -1;
  }
  ExecArgs a = prepare(cmd);
  ChildSetup child;
  child.keep = cmd.keep_fds.data();
  child.n_keep = cmd.keep_fds.size();
  child.report_fd = wr.get();
  ChildPlan<Setup> plan{path, a, cmd, wr.get(), setup, child};
  pid_t pid;
  {
    SignalsBlocked blocked;  // keeps the clone's or fork's errno
    pid = start_child(plan);
  }
  if (pid < 0) {
    exec_errno = errno;
    return -1;
  }
  report = std::move(rd);
  return pid;
}

}  // namespace

namespace {

// A pty master, close-on-exec, and its slave's path; an invalid fd (errno set) on failure.
UniqueFd open_master(std::string& slave) {
#if BLAUDE_LINUX_CALLS
  UniqueFd master(posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
#else
  // POSIX names only O_RDWR and O_NOCTTY for posix_openpt.
  UniqueFd master(posix_openpt(O_RDWR | O_NOCTTY));
  if (master && fcntl(master.get(), F_SETFD, FD_CLOEXEC) != 0) return UniqueFd();
#endif
  if (!master || grantpt(master.get()) != 0 || unlockpt(master.get()) != 0) {
    if (!errno) errno = EIO;
    return UniqueFd();
  }
#if BLAUDE_LINUX_CALLS
  char name[128];
  if (ptsname_r(master.get(), name, sizeof name) != 0) return UniqueFd();
  slave = name;
#else
  // ptsname's static buffer: blaude opens ptys on one thread only.
  const char* name = ptsname(master.get());
  if (!name) return UniqueFd();
  slave = name;
#endif
  return master;
}

Command with_tty_name(const Command& cmd, const std::string& slave) {
  Command out = cmd;
  if (cmd.tty_token.empty()) return out;
  for (auto& a : out.argv)
    for (size_t at = a.find(cmd.tty_token); at != std::string::npos; at = a.find(cmd.tty_token, at + slave.size()))
      a.replace(at, cmd.tty_token.size(), slave);
  return out;
}

}  // namespace

Child spawn_on_pty(const std::string& path, const Command& cmd_in, const termios* modes,
                   const winsize* size) {
  Child c;
  std::string name;
  errno = 0;
  UniqueFd master = open_master(name);
  if (!master) {
    c.exec_errno = errno ? errno : EIO;
    return c;
  }
  const Command cmd = with_tty_name(cmd_in, name);
  UniqueFd slave(open(name.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave) {
    c.exec_errno = errno;
    return c;
  }
  if (modes) tcsetattr(slave.get(), TCSANOW, modes);
  if (size) ioctl(slave.get(), TIOCSWINSZ, size);

  const int slave_fd = slave.get();
  c.pid = fork_exec(path, cmd, c.exec_pipe, c.exec_errno, [slave_fd] {
    // Its own session with the pty slave as controlling terminal, on fds 0-2.
    setsid();
    ioctl(slave_fd, TIOCSCTTY, 0);
    for (int fd = 0; fd < 3; ++fd) dup2(slave_fd, fd);
  });
  if (c.pid < 0) return c;
  slave.reset();  // the master sees EIO only once every slave holder is gone
  int fl = fcntl(master.get(), F_GETFL);
  fcntl(master.get(), F_SETFL, fl | O_NONBLOCK);
  c.master = std::move(master);
  return c;
}

int await_exec(Child& c) {
  if (c.exec_pipe) {
    c.exec_errno = read_exec_errno(c.exec_pipe.get(), &c.pre_exec_step);
    c.exec_pipe.reset();
  }
  return c.exec_errno;
}

Child spawn_plain(const std::string& path, const Command& cmd, bool own_session) {
  Child c;
  c.pid = fork_exec(path, cmd, c.exec_pipe, c.exec_errno, [own_session] {
    if (own_session) setsid();
  });
  if (c.pid >= 0) await_exec(c);
  return c;
}

}  // namespace blaude::pty
