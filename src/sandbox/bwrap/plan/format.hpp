// --dry-run / --debug: the bwrap command as a shell would need it, one option group per line.
#pragma once
#include <string>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

// "bwrap \\\n  --ro-bind /usr /usr \\\n  ..." — each bwrap option with its arguments on one line
// (an --overlay-src with its --tmp-overlay, a --tmpfs with its --remount-ro), the command last.
std::string format_command(const std::vector<std::string>& argv);

// The whole plan as a runnable shell command: each DataFd placeholder becomes fd 3, 4, ... fed
// by a quoted here-document after the command, so what --dry-run prints works when pasted
// into sh (the launcher uses memfds for the same content).
std::string format_command(const LaunchPlan& plan);

}  // namespace blaude::sandbox::bwrap
