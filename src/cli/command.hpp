// Which program runs, with which arguments: the seed's command choice, as a pure function.
#pragma once
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace blaude::cli {

inline constexpr const char* kSkipPermissions = "--dangerously-skip-permissions";

// The argv of the program to start (inside the sandbox, or on the host for HostBypass):
//   --exec CMD ARGS     → CMD ARGS verbatim
//   --chic              → claudechic --dangerously-skip-permissions ARGS
//   remote-control ...  → claude remote-control ...  (claude rejects the skip flag there)
//   update/install/...  → claude ARGS                (host bypass: claude's own subcommand)
//   no args, tty stdin  → claude --dangerously-skip-permissions
//   no args, piped stdin→ claude --dangerously-skip-permissions -p
//   otherwise           → claude --dangerously-skip-permissions ARGS
std::vector<std::string> choose_command(const Options& o, bool stdin_is_tty);

}  // namespace blaude::cli
