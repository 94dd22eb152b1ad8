// What the exec shim does inside the sandbox, before it execs the command, so that nothing the
// command runs can stop or take over the processes that supervise it.
//
// Without it the command shares bwrap's process group: kill(0, SIGSTOP) from inside stops
// bwrap (outside the pid namespace), and the sandbox's init (bwrap's pid 1, same uid, dumpable)
// can be ptraced, made to signal its group, or held stopped so the session never ends.
#pragma once

namespace blaude::inside {

// `kSandboxSelf __exec-pty CMD...`: the shim on blaude's own pty (pty::Command::pty_argv).
inline constexpr const char* kExecShimOnPty = "__exec-pty";

// On blaude's pty: the command's own process group, in the foreground of the pty. bwrap and the
// init stay in theirs, which nothing inside can name (their pgid has no number in the sandbox's
// pid namespace). Only when the shim is in the foreground of `tty_fd` now; returns false (and
// changes nothing) otherwise.
bool take_foreground(int tty_fd);

// A Landlock domain nested in bwrap's: the kernel then refuses ptrace (and /proc/PID/mem, environ)
// of every process outside it, the sandbox's init first. It restricts nothing else (the only file right it handles, making block devices, no process
// in the sandbox has). Returns 0, or the errno (ENOSYS/EOPNOTSUPP: no Landlock on this kernel).
// For nested sandboxes (`nested`), whose mounts a domain that handles any file access would
// refuse, the domain scopes abstract unix sockets instead (Landlock ABI 6; nothing the sandbox
// runs outside the command's tree listens on one); on an older kernel there is none (ENOTSUP),
// and the init can be traced: a nested sandbox is the user's choice of a weaker one.
int nest_landlock_domain(bool nested = false);

}  // namespace blaude::inside
