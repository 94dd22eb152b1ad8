#include "app/mount_litter.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "app/journal.hpp"
#include "common/file_io.hpp"
#include "common/paths.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"

namespace blaude::app {

std::vector<std::string> made_mount_points(const sandbox::LaunchPlan& plan) {
  std::vector<std::string> out;
  auto take = [&](const std::vector<sandbox::InnerMount>& ms) {
    for (const auto& m : ms)
      if (m.kind == sandbox::InnerKind::EmptyDir && !m.host.empty()) out.push_back(m.host);
  };
  take(plan.inner_mounts);
#ifdef __linux__
  if (plan.deferred)
    if (const auto* r = plan.deferred->finished()) take(r->mounts);
#endif
  for (const auto& h : plan.held)
    if (h.make_dir) out.push_back(h.host);
  for (auto& p : out) p = normalize(p);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  // Deepest first: a made dir inside another made one goes before it.
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  return out;
}

std::vector<std::string> remove_mount_points(const std::vector<std::string>& paths, uid_t uid, bool others_running) {
  std::vector<std::string> removed;
  if (others_running) return removed;
  for (const auto& p : paths) {
    if (p.empty() || p[0] != '/' || p == "/") continue;
    UniqueFd parent = open_dir_no_symlinks(dirname_of(p));
    if (!parent) continue;
    const std::string name = basename_of(p);
    struct stat st;
    if (::fstatat(parent.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != uid)
      continue;
    // rmdir removes only an empty dir: anything put there since stays, with the dir.
    if (::unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR) == 0) removed.push_back(p);
  }
  return removed;
}

bool other_sessions_running(const std::string& root, const std::string& own) {
  if (root.empty()) return true;
  const Journals j = read_journals(root);
  return std::any_of(j.live.begin(), j.live.end(), [&](const Journal& s) { return s.name != own; });
}

}  // namespace blaude::app
