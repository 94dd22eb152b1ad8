#include "sandbox/seatbelt_launch.hpp"

#ifdef __APPLE__
#include <unistd.h>
#endif

namespace blaude::sandbox {

std::variant<LaunchPlan, SeatbeltLaunchError> seatbelt_launch(
    const std::optional<std::string>& sandbox_exec, const std::string& profile,
    const std::vector<std::string>& command) {
  if (!sandbox_exec || sandbox_exec->empty())
    return SeatbeltLaunchError{std::string("sandbox-exec not found at ") + kSandboxExec,
                               "blaude needs macOS's sandbox-exec; it will not run Claude "
                               "unsandboxed (use --no-sandbox to do that deliberately)"};
  if (command.empty()) return SeatbeltLaunchError{"nothing to run", "give a command"};
  LaunchPlan plan;
  plan.argv = {*sandbox_exec, "-p", profile, "--"};
  plan.argv.insert(plan.argv.end(), command.begin(), command.end());
  return plan;
}

std::optional<std::string> probe_sandbox_exec() {
#ifdef __APPLE__
  if (::access(kSandboxExec, X_OK) == 0) return std::string(kSandboxExec);
#endif
  return std::nullopt;
}

}  // namespace blaude::sandbox
