#include "sandbox/seatbelt/launch.hpp"

#ifdef __APPLE__
#include <unistd.h>
#endif

#include <climits>
#include <cstdlib>

#include "sandbox/trust/io.hpp"

namespace blaude::sandbox::seatbelt {

using namespace blaude::sandbox::policy;
using namespace blaude::sandbox::trust;

SeatbeltContext seatbelt_context_from_host(const trust::GateRequest& req, const trust::LoadedPolicies& loaded,
                                           const std::string& tty_device) {
  auto resolved = [](const std::string& p) {
    char buf[PATH_MAX];
    return !p.empty() && ::realpath(p.c_str(), buf) ? std::string(buf) : p;
  };
  SeatbeltContext c;
  c.home = resolved(req.home);
  c.project_dir = resolved(req.project_root);
  const char* tmp = std::getenv("TMPDIR");
  if (tmp && tmp[0] == '/') c.tmp_dir = resolved(tmp);
  while (c.tmp_dir.size() > 1 && c.tmp_dir.back() == '/') c.tmp_dir.pop_back();
  // $TMPDIR becomes writable: never let it be / or an ancestor of home.
  if (c.tmp_dir == "/" || path_within(c.home, c.tmp_dir)) c.tmp_dir.clear();
  auto common = find_git_common_dir(req.project_root);
  if (!common.empty() && !path_within(common, c.project_dir)) c.git_common_dir = common;
  c.policy_file = loaded.project_file.empty() ? "" : resolved(loaded.project_file);
  c.tty_device = tty_device;
  return c;
}

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

}  // namespace blaude::sandbox::seatbelt
