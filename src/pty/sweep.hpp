// What ends with a session when there is no pid namespace to end it (macOS: Seatbelt has none;
// bwrap's --unshare-pid does this on Linux). After the child, a session leader on its pty, has been
// reaped, every process still in its session, and every descendant of one, is killed (SIGKILL),
// before the post-session audit looks at the disk. What it cannot find: a process that left the
// session (setsid) AND whose parent is gone (double fork): it has no link to the session left that
// POSIX can see. (On macOS the kernel's process list has no more: no subreaper, no namespace.)
// Pty mode sweeps always (the child leads a session on its pty); pipes mode only when blaude has
// no controlling terminal (the child then gets its own session; pty/supervisor.cpp).
#pragma once
#include <sys/types.h>

#include <vector>

namespace blaude::pty {

struct ProcRow {
  pid_t pid = 0, ppid = 0, sid = -1;  // sid -1: unknown (gone, or getsid refused)
  bool zombie = false;                 // dead already, waiting for its parent: nothing to kill
};

// Pure: the pids to kill: rows with sid == leader, and (transitively) every row whose parent is
// one of them; never `self` (blaude), never pid <= 1, never a zombie.
std::vector<pid_t> session_members(const std::vector<ProcRow>& rows, pid_t leader, pid_t self);

// The process list, POSIX only: `/bin/ps -A -o pid= -o ppid= -o stat=` (procps and BSD ps alike), and
// getsid() for each pid. Empty when ps cannot run.
std::vector<ProcRow> list_processes();

// Kills session_members() until a round finds none (a member forking meanwhile is found in the
// next round); at most `rounds` rounds. Returns how many processes it killed.
int sweep_session(pid_t leader, int rounds = 8);

}  // namespace blaude::pty
