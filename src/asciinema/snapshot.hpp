// Reading the facts the pure parts decide on: from /proc on Linux (snapshot.cpp); with the POSIX
// fallbacks (macOS, or a Linux build that forces them) from `ps` and POSIX calls
// (snapshot_ps.cpp). Nothing else in the guard reads processes.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>

#include "asciinema/detect.hpp"
#include "common/unique_fd.hpp"

namespace blaude::asciinema {

// blaude's ancestors and the parent of its session leader.
Snapshot take_snapshot();
// The recorder's current scheduling state letter, '?' if it is gone.
char proc_state(pid_t pid);
// Opens the terminal process `pid` works on as our own description (no controlling terminal,
// non-blocking) and checks that it is a terminal of ours and not blaude's own. Invalid fd and
// `problem` set when it cannot be used.
UniqueFd open_process_terminal(pid_t pid, std::string& problem);

}  // namespace blaude::asciinema
