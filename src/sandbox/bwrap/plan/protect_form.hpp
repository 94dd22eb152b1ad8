// The forms a protection takes on its way into the sandbox, and when the planner chooses each.
// A protection is a path the sandbox must not change the way the host will later read it: a
// file or dir that runs code on the host (.git/hooks, .git/config, Claude Code's hooks), a host
// socket in /tmp, a tool's files. What it becomes (read-only, pinned, hidden, write-discarding)
// is decided by the rule that protects it; how bwrap's sandbox gets it is the form below, chosen
// from what the host can do. --dry-run lists every protected path with the form it took.
#pragma once
#include <string>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

enum class ProtectForm : unsigned char {
  // blaude's protect helper mounts it inside the sandbox's namespaces after bwrap's own mounts and
  // before the command, on the very object the probe checked (InnerMount, run/protect_gate.hpp).
  // Chosen wherever the helper can run (HostFacts::inner_mounts: bwrap is not setuid and the
  // kernel has the new mount API: openat2, open_tree, move_mount, mount_setattr). A leaf bind of
  // bwrap's that nothing else mounts over or below is made by the helper too (protect.cpp
  // lift_binds).
  Helper,
  // As Helper, laid out once the workspace scan finishes, after bwrap is spawned
  // (DeferredProtect, deferred.hpp): the workspace's guards when the scan is still running at plan
  // time. Never under --dry-run or --debug, which wait for the scan.
  HelperLater,
  // bwrap's --ro-bind-fd / --bind-fd from a descriptor the launcher opened with no symlink on the
  // path and checked against the probe (HeldPath, held.hpp); bwrap checks where it landed. Chosen
  // where the helper cannot run (a setuid bwrap, an older kernel) and bwrap has the fd binds
  // (0.5+); without them the plan fails closed (plan_held.cpp).
  Held,
  // A mount bwrap makes by path, re-checked by the exec shim inside before the command runs
  // (MountCheck, run/mount_checks.hpp): a mismatch runs nothing. Chosen for a protection that is a
  // bwrap option by nature (a read-only tool dir, a /tmp socket dir's tmpfs where the helper
  // cannot run) when its source is one the probe checked.
  ByPathChecked,
  // A mount bwrap makes by path, not re-checked: its source is not one the probe looked at, or
  // there is no exec shim to check it.
  ByPath,
  // bwrap's --tmp-overlay: writes land in a tmpfs and are discarded at exit. Chosen for tool and
  // config homes (~/.config, ~/.npm, nvm, uv, ...) when bwrap is 0.9 or newer.
  Overlay,
  // bwrap < 0.9: blaude mounts the write-discarding overlay itself before bwrap starts
  // (probe/confine.hpp) where the kernel lets an unprivileged user mount overlayfs; bwrap binds it.
  OwnOverlay,
  // Neither overlay is possible: the path stays writable on the host, and a warning names it.
  HostWritable,
  // In the bwrap-option form a pin that would hide a mount made below it ($HOME's tmpfs under a
  // pinned /tmp dir) is left out, with a warning: not made at all.
  NotMade,
};

// The word --dry-run prints for a form.
const char* form_name(ProtectForm f);
// What a helper mount of kind `k` makes of its path ("read-only", "pinned", ...); "" for the
// kinds that are no protection (/dev, a lifted bind).
const char* protection_what(InnerKind k);

struct Protection {
  std::string path;  // in the sandbox
  std::string what;  // what it becomes: "read-only", "pinned", "hidden", "writes discarded", ...
  ProtectForm form = ProtectForm::Helper;
  std::string why;   // what it protects
};

// Every protected path of a finished plan with the form it took, in path order: the helper's
// mounts, the ops the planner marked as protections (resolved against what the passes made of
// them: lifted to the helper, held, re-checked), the pins left out. A deferred layout is one
// entry with the workspace's path and form HelperLater.
std::vector<Protection> protections_of(const LaunchPlan& plan);

// protections_of() as --dry-run's comment block: every line starts with "#" and every
// agent-chosen string is escaped (common/shown.hpp), so the printed command still runs in sh.
std::string format_protections(const LaunchPlan& plan);

}  // namespace blaude::sandbox::bwrap
