// Starting the child: on a new pty (own session, pty slave as controlling terminal) or on
// blaude's own stdio (pipes mode). uv_spawn cannot make a controlling terminal, so this starts the
// child itself (a vfork-style clone on Linux, see spawn.cpp).
#pragma once
#include <sys/types.h>
#include <termios.h>

#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"

struct winsize;

namespace blaude::pty {

// Work the child does just before exec (the sandbox's confinement: a fresh keyring, Landlock,
// blaude's own namespace). The child may share blaude's memory (start_child: CLONE_VM |
// CLONE_VFORK, blaude suspended until the exec), so `run` makes syscalls only: no allocation,
// no locks, no stdio; it may write only to memory laid out for it (its `arg`). A nonzero return
// is an errno and *step (nonzero) says which part failed: the child exits without exec'ing.
struct PreExec {
  int (*run)(const void* arg, int* step) = nullptr;
  const void* arg = nullptr;
  const char* (*describe)(int step) = nullptr;  // for the error message
};

struct Command {
  std::vector<std::string> argv;                // argv[0] is looked up on PATH
  std::optional<std::vector<std::string>> env;  // KEY=VALUE list; nullopt = blaude's environ
  std::vector<int> keep_fds;  // extra descriptors the child keeps at the same numbers (>= 3)
  PreExec pre_exec;
  // When set: the argv to run instead when the child runs on blaude's own pty (not when the
  // supervisor falls back to pipes mode on the user's terminal).
  std::optional<std::vector<std::string>> pty_argv;
  // Pty mode: every occurrence of this text in argv is replaced by the pty slave's path before
  // exec ("" = none). The Seatbelt profile names the session's own terminal this way: its name
  // exists only once the pty is open.
  std::string tty_token;
};

// Where argv[0] resolves with this PATH, or why it cannot run.
struct Resolved {
  std::string path;      // set on success
  int exit_code = 0;     // 127 not found, 126 not executable
  std::string message;   // "CMD: command not found"
};
Resolved resolve_command(const std::string& name, const std::string& path_env);

struct Child {
  pid_t pid = -1;
  UniqueFd master;  // pty mode only; non-blocking, close-on-exec
  int exec_errno = 0;  // nonzero: the child could not exec (it has exited with 126/127)
  int pre_exec_step = 0;  // nonzero: Command::pre_exec failed (exec_errno says why)
  UniqueFd exec_pipe;  // pty mode: EOF once the child has exec'd; await_exec() reads it
};

// Blocks until the child has exec'd (or failed to); returns and records its errno (0 = ran).
// spawn_on_pty leaves this to the caller so that blaude's own setup (raw mode, watchdog, loop)
// overlaps the child's exec instead of waiting for it.
int await_exec(Child& c);

// Pty mode: the slave gets `modes` (the user's terminal's saved modes) and `size`.
Child spawn_on_pty(const std::string& path, const Command& cmd, const termios* modes,
                   const winsize* size);
// Pipes mode: the child inherits blaude's stdio and process group; with `own_session`, it
// leads a session of its own instead (setsid: only when blaude has no controlling terminal the
// child could lose), so that the session sweep can find what it leaves behind.
Child spawn_plain(const std::string& path, const Command& cmd, bool own_session = false);

// The shell convention: 128+N for death by signal N, else the exit code.
int exit_code_from_status(int status);

}  // namespace blaude::pty
