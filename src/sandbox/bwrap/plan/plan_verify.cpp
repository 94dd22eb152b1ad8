// Probe-then-mount for the mounts bwrap makes by path: the
// workspace's own bind, -m dirs, tool dirs, ~/.claude, and — where the protect helper cannot
// run — the /tmp dir shadows' --tmpfs. Between blaude's probe and bwrap's mount, a process of the
// same user can swap a component of the source for a symlink (bwrap then binds what it leads to:
// $HOME at /workspaces/x), or the destination's name under a live host dir (bwrap 0.8 follows a
// symlink there and mounts the shadow somewhere else). bwrap has no option to check either. So
// every such mount that is still visible once argv's mounts are all made is listed here
// (LaunchPlan::checks); the launcher records each bind source's identity with no symlink on the
// way, and blaude's exec shim checks from inside, before the command, that each mount landed on
// exactly that (bwrap/mount_checks.hpp). Any mismatch runs nothing: the class closes for every
// by-path mount in both forms of the protections, without a bwrap feature.
#include <set>

#include "common/paths.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

// Indices of the steps whose destination no later mount covers (same path or an ancestor).
std::set<size_t> visible_steps(const std::vector<MountStep>& steps) {
  std::set<std::string> later;
  std::set<size_t> out;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    bool hidden = false;
    for (std::string d = it->dst; !hidden && !d.empty(); d = d == "/" ? "" : dirname_of(d))
      hidden = later.count(d) > 0;
    if (!hidden) out.insert(it->index);
    if (hides(*it)) later.insert(it->dst);
  }
  return out;
}

}  // namespace

// The source is what bwrap will bind only if the probe saw it as a canonical path: a symlinked
// source (a dotfile dir linked elsewhere, a symlinked $HOME) is bound through its link on
// purpose, and blaude's own overlays (confine) replace what is below them in the launcher's child
// before bwrap runs. A path the probe did not look at is not checked (nothing says it is
// canonical; a refusal there would stop launches for a link the user made).
bool checkable_source(const Builder& b, const std::string& src) {
  if (src.empty() || src[0] != '/' || src == "/dev/null") return false;
  for (const auto& o : b.p.confine.overlays)
    if (is_under(src, o)) return false;
  if (src == b.f.cwd || src == b.f.self_exe || src == b.f.shim_exe || b.f.ws.ids.count(src)) return true;
  for (const auto& m : b.f.mounts)
    if (m.real == src && m.lkind != Kind::Symlink) return true;
  auto it = b.f.paths.find(src);
  return it != b.f.paths.end() && it->second.lkind != Kind::Symlink && it->second.lkind != Kind::Missing &&
         it->second.real == src;
}

void add_mount_checks(Builder& b, bool shim) {
  if (b.f.env_or("BLAUDE_MOUNT_CHECKS") == "off") {  // the attack tests' control
    b.p.warnings.push_back("BLAUDE_MOUNT_CHECKS=off: the mounts bwrap makes by path are not re-checked inside");
    return;
  }
  // As bwrap gets them: the binds lifted to the helper are the helper's to check.
  const auto steps = steps_of(b.ops, 1, /*count_helper=*/false);
  const auto visible = visible_steps(steps);
  const auto source_of = source_table(b.ops);
  for (const auto& st : steps) {
    if (!visible.count(st.index) || b.ops[st.at].held) continue;
    if (st.op == "--bind" || st.op == "--ro-bind" || st.op == "--dev-bind") {
      if (!checkable_source(b, st.src)) continue;
      MountCheck c{MountCheck::Kind::Bind, st.dst, st.src, st.op == "--ro-bind", {}};
      if (auto id = b.f.ws.ids.find(st.src); id != b.f.ws.ids.end()) c.id = id->second;
      // The workspace is the dir blaude runs in, whatever its path resolved to meanwhile.
      if (st.src == b.f.cwd && b.f.cwd_id.type) c.id = b.f.cwd_id;
      b.p.checks.push_back(std::move(c));
    } else if (st.op == "--tmpfs" && st.dst != "/" && !source_of(dirname_of(st.dst)).empty()) {
      // A tmpfs on a name inside a host dir (a /tmp shadow): that name can be swapped. One on
      // bwrap's own root (/tmp with --clear-tmp, $HOME) cannot: nothing outside reaches it.
      b.p.checks.push_back({MountCheck::Kind::Tmpfs, st.dst, "", false, {}});
    }
  }
  // No exec shim means no one inside to check: nothing is listed. A real probe that could not
  // find blaude's binary refuses the launch before this (plan_seed.cpp, shimmed()); only facts
  // that never probed it (unit tests) get here without a shim.
  if (!shim) b.p.checks.clear();
}

}  // namespace blaude::sandbox::bwrap::detail
