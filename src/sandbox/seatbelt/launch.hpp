// macOS backend, launch part: the sandbox-exec argv and what --dry-run prints. Pure. The profile
// goes inline (-p): no file the sandbox could rewrite between our write and sandbox-exec's read
// (xclaude's hole, reference A.12).
#pragma once
#include <string>
#include <variant>
#include <vector>

#include "sandbox/launch_plan.hpp"
#include "sandbox/seatbelt/context.hpp"

namespace blaude::sandbox::seatbelt {

// The launcher replaces this in argv by the session's pty slave (pty::Command::tty_token).
inline constexpr const char* kTtyToken = "@BLAUDE_PTY@";

// `sandbox-exec -p PROFILE -- command...`, or an error when sandbox-exec is missing (fail
// closed: never run unsandboxed by surprise).
std::variant<LaunchPlan, SeatbeltPlanError> seatbelt_launch(const std::string& sandbox_exec,
                                                            const std::string& profile,
                                                            const std::vector<std::string>& command);

// What --dry-run prints: the profile in a here-document, then the command that runs it with the
// exact environment (`env -i`) from the session's directory, runnable as printed. The pty's
// name is unknown before the session opens it: a comment says so, and the printed profile
// names it by the token.
std::string format_dry_run(const LaunchPlan& plan, const std::vector<std::string>& env, const std::string& cwd);

}  // namespace blaude::sandbox::seatbelt
