// Internal to the planner: accumulates the sandbox's setup as typed ops (mount_op.hpp) and
// remembers what it made writable, so later rules (protected paths) can find every alias of the
// workspace. The argv is written from the ops once, at the end of plan().
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/bwrap/plan/mount_op.hpp"
#include "sandbox/bwrap/plan/protect_layout.hpp"
#include "sandbox/request.hpp"

namespace blaude::sandbox::bwrap::detail {

enum class Fallback { Bind, RoBind, Tmpfs };

// What the planner has built so far: the plan, and what its later rules read. A value apart
// from the request and the host it is built over, so that the late layout (DeferredProtect,
// deferred.hpp) takes it whole, exactly as plan() had it when it reached the protections: a
// field added here cannot be left out of that copy (one was: the ~/.config pins, stop 23).
struct Built {
  LaunchPlan p;  // its argv is empty until plan() renders `ops` into it
  Ops ops;       // the setup so far, in bwrap's order (argv[0], the program, is not an op)
  std::vector<std::pair<std::string, std::string>> rw_binds;  // (host canonical src, sandbox dst)
  std::vector<std::string> host_writable;                      // overlay fallbacks left writable
  std::set<std::string> linked_mounts;                         // linked-package ro-binds done
  std::vector<HostGuard> guards;                               // host paths to protect (protect.cpp)
  std::vector<HostGuard> always_guards = {};  // the same, also under --allow-protected-writes and --tmp
  std::vector<HostGuard> claude_guards = {};  // Claude Code's programs: also under --tmp (plan.cpp)
  std::string config_pins = {};  // read-only in a host-writable ~/.config (for the warning)
  // The read-only binds of ~/.config's unmapped entries (plan_ipc.cpp add_config_unmapped), by
  // destination: they only turn overlayfs's EOVERFLOW into EROFS, no protection hangs on them,
  // so a later mount that hides one (-m ~/.config/x:rw, a workspace there) is no mount-order
  // error: that mount decides, as it would without them.
  std::set<std::string> soft_binds = {};
  // Binds of a missing dir that the launcher creates and holds (protect's EmptyDir in the
  // bwrap-option fallback): host path -> its parent's identity.
  std::map<std::string, Identity> made_dirs = {};
  // The binds (src, dst) to make by held descriptor (plan_held.cpp): the protect fallback's and
  // the /tmp socket-file shadows.
  std::set<std::pair<std::string, std::string>> held_binds = {};
  // The /tmp IPC shadows the protect helper mounts (plan_ipc.cpp), before the protections.
  std::vector<InnerMount> shadows = {};
  // The user's sockets in /tmp still being scanned (HostFacts::tmp_user_sockets_pending): where
  // in `shadows` theirs go, for LaunchPlan::deferred to put them there (protect.cpp).
  std::optional<size_t> user_sockets_at = {};
  // /dev: a --tmpfs op that the protect helper fills (InnerKind::Dev) instead of bwrap's --dev;
  // settle_dev() (protect.cpp) goes back to --dev where a later mount lands below /dev.
  bool inner_dev = false;
  // (The leaf binds the protect helper makes instead of bwrap are ops with MountOp::helper set:
  // lift_binds() in protect.cpp.)
};

struct Builder : Built {
  Builder(const SandboxRequest& r, const HostFacts& h, Built built = {}) : Built(std::move(built)), req(r), f(h) {}
  const SandboxRequest& req;
  const HostFacts& f;

  void add(MountOp op) { ops.push_back(std::move(op)); }
  void add(OpKind k, const std::string& src, const std::string& dst) { add(mount_op(k, src, dst)); }
  // A non-mount option with its values (--chdir DIR, --setenv K V, a namespace flag).
  void option(std::vector<std::string> words) { add(option_op(std::move(words))); }
  void ro(const std::string& src, const std::string& dst) { add(OpKind::RoBind, src, dst); }
  void ro(const std::string& path) {
    if (auto d = landing(path); !d.empty()) ro(d, d);
  }
  void rw(const std::string& src, const std::string& dst);
  void rw(const std::string& path) {
    if (auto d = landing(path); !d.empty()) rw(d, d);
  }
  // Where to mount `path` at its own place: bwrap cannot mount onto a symlink (0.10+ refuses,
  // 0.8 follows it and fails with ENOENT), so when an earlier host mount shows `path` as a
  // symlink, its target's canonical path; "" (with a warning) when that is dangling or would
  // expose $HOME. Paths on bwrap's own tmpfs are never links: bwrap creates the mount point.
  std::string landing(const std::string& path);
  void tmpfs(const std::string& path) { add(OpKind::Tmpfs, "", path); }
  void dir(const std::string& path, const std::string& perms = "") {
    MountOp d = mount_op(OpKind::Dir, "", path);
    d.perms = perms;
    add(std::move(d));
  }
  void overlay(const std::string& src, const std::string& dst) { add(OpKind::Overlay, src, dst); }
  // A host tool or config dir: write-discarding overlay where bwrap can, else the fallback.
  // Nothing unless the path is a directory.
  // `why`: what it protects (--dry-run's list of protected paths).
  void overlay_or(const std::string& path, Fallback fb, const std::string& why);
  // Marks the mounts added since op `from` as protections (protect_form.hpp): what they make of
  // their paths and why; `form` where the rule decides it.
  void protects_since(size_t from, const std::string& what, const std::string& why,
                      std::optional<ProtectForm> form = {}) {
    for (size_t i = from; i < ops.size(); ++i)
      if (ops[i].kind != OpKind::Option && ops[i].kind != OpKind::Dir && ops[i].kind != OpKind::RemountRo)
        ops[i].protects = MountOp::Protects{what, why, form};
  }
  bool is_dir(const std::string& path) const { return f.at(path).kind == Kind::Dir; }
  bool is_file(const std::string& path) const { return f.at(path).kind == Kind::File; }
  std::string home(const std::string& rel) const { return f.home + "/" + rel; }
};

// Host IPC and blaude's own config (plan_ipc.cpp): the /tmp socket names (after the /tmp bind),
// the late ones (after every mount: TMUX_TMPDIR elsewhere, ~/.config/blaude read-only), --git's
// gpg binds, and the confinement applied before bwrap.
void add_tmp_ipc(Builder& b);
// The shadows of the user's own sockets in /tmp (part of add_tmp_ipc; with the sockets still
// being scanned it only notes where they go: Builder::user_sockets_at).
void add_user_sockets(Builder& b);
void add_ipc_late(Builder& b);
void add_gpg(Builder& b);
void add_confinement(Builder& b);
void add_config_fallback_pins(Builder& b, const std::string& cfg);
// ~/.config's entries overlayfs cannot copy up (IpcFacts::config_unmapped): read-only binds on
// the overlay at `at` (where it is mounted), and the one-time warning with the fix.
void add_config_unmapped(Builder& b, const std::string& at);

// Workspace bind; collects the protected paths (protect.cpp).
void add_workspace(Builder& b);
// Right after it: a linked worktree's repository at its host path (plan_worktree.cpp).
void add_worktree_git(Builder& b);
// The protections at every writable alias, after every other mount (protect.cpp).
void add_protections(Builder& b);
// Last, once the ops' order is final (plan_held.cpp): the binds in `held_binds` are made by held
// descriptor (LaunchPlan::held, at the argv index each op renders to).
void add_held_binds(Builder& b);
// After that (plan_verify.cpp): every mount bwrap still makes by path, for the exec shim to
// re-check from inside before the command starts (LaunchPlan::checks). `shim`: the command
// starts through blaude's exec shim (without it nothing is listed; a real probe that cannot find
// blaude's binary has refused the launch already: shimmed()).
void add_mount_checks(Builder& b, bool shim);
// Whether the mount checks (or the helper) can hold bind source `src` to what the probe saw.
bool checkable_source(const Builder& b, const std::string& src);
// Linked packages' roots and token files (plan_extras.cpp).
void add_linked_packages(Builder& b);
// Files and dirs named by claude's environment variables (plan_extras.cpp).
void add_env_binds(Builder& b);
// Dirs of the programs managed settings name (plan_extras.cpp).
void add_managed_dirs(Builder& b);

// plan_seed.cpp: a dir the seed keeps across sessions (~/.notebooklm-mcp, ~/.claude-mem):
// bound read-write, created 0700 by the prepare step when missing.
void persistent_dir(Builder& b, const std::string& path, const std::string& why);
// The seed's warning for a workspace under /mnt on WSL, once (a marker in ~/.cache/blaude).
void add_wsl_warning(Builder& b);
// The command as bwrap starts it: through blaude's own binary (`kSandboxSelf __exec CMD...`,
// bound read-only) when the probe found it, so that CMD's exec failure exits 127/126.
std::vector<std::string> shimmed(Builder& b, const std::vector<std::string>& command, bool bind_self = true);

// The program that runs (HostFacts::exe), at its own path, when the mounts so far hide it
// (plan_exe.cpp). Throws PlanError when that would need $HOME or a secrets dir.
void add_exe(Builder& b, const std::vector<std::string>& command);

}  // namespace blaude::sandbox::bwrap::detail
