// --dry-run / --debug: the bwrap command as a shell would need it, one option group per line.
#pragma once
#include <string>
#include <vector>

#include "sandbox/bwrap/plan/mount_op.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

// "bwrap \\\n  --ro-bind /usr /usr \\\n  ..." — each op with its arguments on one line (a --tmpfs
// with its --remount-ro, a data file with its --dir), `tail` ("--" and the command) last.
std::string format_command(const std::string& program, const Ops& ops, const std::vector<std::string>& tail);

// The whole plan as a runnable shell command: each DataFd placeholder becomes fd 3, 4, ... fed
// by a quoted here-document after the command, so what --dry-run prints works when pasted
// into sh (the launcher uses memfds for the same content).
std::string format_command(const LaunchPlan& plan);

}  // namespace blaude::sandbox::bwrap
