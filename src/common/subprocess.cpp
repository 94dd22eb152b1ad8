#include "common/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "common/unique_fd.hpp"
#include "common/pipe.hpp"

extern char** environ;

namespace blaude {

namespace {

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

RunResult run_capture(const std::vector<std::string>& argv, const RunOptions& opts) {
  RunResult r;
  if (argv.empty()) return r;
  // The read end tells when every writer (the program and anything it left running) is gone;
  // without capture it still bounds the wait.
  UniqueFd rd, wr;
  if (!make_pipe(rd, wr)) return r;

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (opts.capture) {
    posix_spawn_file_actions_adddup2(&fa, wr.get(), 1);
    posix_spawn_file_actions_adddup2(&fa, wr.get(), 2);
  } else {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, wr.get(), 3);  // not close-on-exec after dup2
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  if (opts.env) {
    for (const auto& kv : *opts.env) cenv.push_back(const_cast<char*>(kv.c_str()));
    cenv.push_back(nullptr);
  }
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), opts.env ? cenv.data() : environ);
  posix_spawn_file_actions_destroy(&fa);
  wr.reset();
  if (rc != 0) return r;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts.timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd p{rd.get(), POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n <= 0) continue;  // EINTR or the deadline: the loop head decides
    char buf[4096];
    ssize_t got = ::read(rd.get(), buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (r.output.size() < 65536) r.output.append(buf, static_cast<size_t>(got));
  }
  if (r.timed_out) ::kill(pid, SIGKILL);
  int status = wait_status(pid);
  if (!r.timed_out) r.status = status;
  return r;
}

}  // namespace blaude
