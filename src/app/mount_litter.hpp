// The empty dirs a session leaves on the host as mount points: a protection of a missing dir
// (a repository's hooks, Claude Code's hooks dir) is an empty read-only tmpfs on a dir made for
// it, in a writable bind, so the dir appears on the host too. Removed after the session when
// still empty, so that nothing blaude mounted stays behind in the user's tree or `.git`.
#pragma once
#include <string>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::app {

// The host paths of the dirs the plan makes to mount on (the helper's EmptyDir mounts, a
// finished deferred layout's too, and the launcher's held make_dir binds), sorted, deepest first.
std::vector<std::string> made_mount_points(const sandbox::LaunchPlan& plan);

// Removes each path that is still an empty dir owned by `uid` (rmdir beneath its parent, opened
// with no symlink on the way). Nothing when `others_running`: another session's sandbox may hold
// its own mount on the same dir, and removing the dir on the host would take that mount away in
// its namespace (the kernel detaches mounts on a removed dir everywhere). Returns what it removed.
std::vector<std::string> remove_mount_points(const std::vector<std::string>& paths, uid_t uid, bool others_running);

// Whether a session other than ours (`own`, our journal's name) runs now, by the sessions dir
// `root` (app/journal.hpp); true when that cannot be told (no dir).
bool other_sessions_running(const std::string& root, const std::string& own);

}  // namespace blaude::app
