// Reading the facts the pure parts decide on from /proc (Linux). macOS would use sysctl/libproc
// here and nowhere else.
#pragma once
#include <optional>
#include <string>

#include "asciinema/detect.hpp"

namespace blaude::asciinema {

// The whole file, or nullopt if it cannot be read.
std::optional<std::string> read_proc_file(const std::string& path);
std::optional<ProcInfo> read_proc(pid_t pid);
// blaude's ancestors and the parent of its session leader.
Snapshot take_snapshot();
// The recorder's current scheduling state letter, '?' if it is gone.
char proc_state(pid_t pid);

}  // namespace blaude::asciinema
