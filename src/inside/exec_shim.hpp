// `blaude __exec CMD ARGS...`: how the sandboxed command starts. bwrap runs blaude's own binary
// (bind-mounted read-only at sandbox::kSandboxSelf) with this, inside the sandbox; it looks CMD up
// with the sandbox's PATH exactly as the --no-sandbox path does (pty::resolve_command) and execs
// it in place (same pid, terminal and exit status). bwrap's own exec failure exits 1 with its
// own message; through here a missing CMD exits 127 and one that cannot run 126, the same codes
// and "blaude: CMD: ..." messages as outside the sandbox. First it isolates the command from
// bwrap and the sandbox's init (shim_isolation.hpp).
#pragma once
#include "sandbox/request.hpp"

namespace blaude::inside {

inline constexpr const char* kExecShim = sandbox::kExecShim;

// argv: CMD ARGS... (after "__exec", or "__exec-pty" on blaude's own pty: on_pty). Returns only
// on failure, with the exit code.
int exec_shim(int argc, char** argv, bool on_pty);

}  // namespace blaude::inside
