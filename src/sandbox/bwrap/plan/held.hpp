// The launcher's half of LaunchPlan::held (launch_plan.hpp): opens each bind's source with no
// symlink on the way, checks it is what the probe saw, and rewrites the bind to take the
// descriptor. The planner's half is plan_held.cpp.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

// The last mount op of a plan with held binds: bwrap reads this data only after every earlier op
// succeeded, so the descriptor's offset says afterwards whether bwrap got through its mounts
// (bwrap's own refusal of a swapped bind is a line on stderr and exit status 1, like the command's).
inline constexpr const char* kSetupDoneToken = "@fd:setup-done";
inline constexpr const char* kSetupDoneFile = "/run/blaude/mounted";

// A held path is not what the probe saw (swapped, replaced by a symlink, created meanwhile).
struct HeldPathChanged : std::runtime_error {
  explicit HeldPathChanged(const std::string& path) : std::runtime_error(path + " changed while the sandbox was starting") {}
};

// `host`, every component opened O_PATH|O_NOFOLLOW from "/": a symlink anywhere fails. Then
// checked against `id` (type always; dev and ino when known). For make_dir, the parent is
// checked and the dir created in it (it must not exist yet). Throws HeldPathChanged, or
// std::system_error when the path cannot be opened for another reason.
UniqueFd hold_path(const HeldPath& h);

// Opens every held path and rewrites argv's binds to the descriptors (appended to `fds`, their
// numbers to `keep_fds`). Raises RLIMIT_NOFILE's soft limit when the plan needs more.
void hold_binds(std::vector<std::string>& argv, const std::vector<HeldPath>& held, std::vector<UniqueFd>& fds,
                std::vector<int>& keep_fds);

// Whether bwrap read the setup-done data (fd = the launcher's copy of it; -1: none, says true).
bool setup_done(int fd);

// After bwrap failed: the first held path that is no longer what the probe saw ("" if none), to
// explain bwrap's own refusal ("Race condition binding dirfd").
std::string changed_held_path(const std::vector<HeldPath>& held);

}  // namespace blaude::sandbox::bwrap
