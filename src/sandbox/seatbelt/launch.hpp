// macOS backend, launch part. The argv builder is pure and portable; only the probe for
// sandbox-exec is Apple-specific (and tiny). The profile goes inline (-p): no file the sandbox
// could rewrite between our write and sandbox-exec's read (xclaude's hole, reference A.12).
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sandbox/launch_plan.hpp"
#include "sandbox/seatbelt/profile.hpp"
#include "sandbox/trust/gate.hpp"

namespace blaude::sandbox::seatbelt {

inline constexpr const char* kSandboxExec = "/usr/bin/sandbox-exec";

struct SeatbeltLaunchError {
  std::string message;  // "sandbox-exec not found …"
  std::string hint;
};

// sandbox_exec: the probed path of sandbox-exec, or nullopt when it is missing; then the result
// is an error (fail closed: never run unsandboxed by surprise).
std::variant<LaunchPlan, SeatbeltLaunchError> seatbelt_launch(
    const std::optional<std::string>& sandbox_exec, const std::string& profile,
    const std::vector<std::string>& command);

// Host facts for the profile (portable; realpath only): resolved home, project and $TMPDIR, the
// git common dir when it lies outside the project (a linked worktree), the project policy file.
// tty_device: the supervisor's pty slave name (ptsname), so only that terminal is reachable.
SeatbeltContext seatbelt_context_from_host(const trust::GateRequest& req, const trust::LoadedPolicies& loaded,
                                           const std::string& tty_device);

// Host probe: the usable sandbox-exec path. Always nullopt on non-Apple platforms.
std::optional<std::string> probe_sandbox_exec();

}  // namespace blaude::sandbox::seatbelt
