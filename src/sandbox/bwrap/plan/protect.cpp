// The workspace and its protected paths: files and dirs that run code on the host later
// (.git/hooks, .git/config, .bashrc, .vscode, ...) are made read-only or write-discarding,
// at every path through which the sandbox can write the workspace.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <sys/stat.h>

#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"
#include "common/paths.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"
#include "sandbox/bwrap/probe/probe_ipc.hpp"
#include "sandbox/bwrap/plan/gate_args.hpp"
#include "sandbox/bwrap/plan/protect_layout.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

// Guards on host paths from the seed's protected names (depth 1..3).
struct Collector {
  const HostFacts& f;
  LaunchPlan& p;
  std::vector<HostGuard>& out;

  bool inside(const std::string& real) const { return !real.empty() && is_under(real, f.cwd) && real != f.cwd; }

  // A protected name that is a symlink is never mounted (a mount would follow it to wherever the
  // agent pointed it). Its target is protected instead when that lies inside the workspace.
  bool symlink(const std::string& rel, const PathFact& pf, Kind want) {
    if (pf.lkind != Kind::Symlink) return false;
    p.warnings.push_back("protected path " + rel + " is a symlink; it is not bound");
    if (inside(pf.real) && pf.kind == want) out.push_back({pf.real, Guard::ReadOnly, rel + " (through a symlink)"});
    return true;
  }
  void file(const std::string& rel, const PathFact& pf) {
    if (symlink(rel, pf, Kind::File)) return;
    if (pf.lkind == Kind::File) out.push_back({f.cwd + "/" + rel, Guard::ReadOnly, rel});
  }
  void dir(const std::string& rel, const PathFact& pf) {
    if (symlink(rel, pf, Kind::Dir)) return;
    if (pf.lkind == Kind::Dir) out.push_back({f.cwd + "/" + rel, Guard::ReadOnly, rel});
  }
};

bool safe_link_target(const std::string& t) {
  for (const char* p : {"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev"})
    if (is_under(t, p)) return true;
  return false;
}

void warn_links(Builder& b) {
  std::string w;
  for (const auto& l : b.f.ws.links) {
    if (is_under(l.target, b.f.cwd) || safe_link_target(l.target)) continue;
    w += "\n  " + l.rel + " -> " + l.target;
  }
  if (!w.empty()) b.p.warnings.push_back("workspace contains symlinks pointing outside the tree:" + w);
}

void collect(Builder& b) {
  Collector c{b.f, b.p, b.guards};
  for (const auto& [rel, pf] : b.f.ws.hits) {
    std::string name = basename_of(rel);
    if (is_protected_dir_name(name)) {
      c.dir(rel, pf);
    } else {
      c.file(rel, pf);
    }
  }
  // Git: every file and dir git reads code-bearing configuration from, at any depth (repo_scan).
  for (const auto& g : b.f.ws.git.protect) {
    b.guards.push_back({g.path, g.guard, g.why});
    if (g.guard == Guard::EmptyDir)
      b.p.notes.push_back(g.path + " is missing; it is kept empty and read-only in the sandbox "
                                   "(an empty directory is its mount point on the host during the session, removed after it)");
  }
  for (const auto& w : b.f.ws.git.warnings) b.p.warnings.push_back(w);
  if (b.f.ws.truncated)
    b.p.warnings.push_back("the workspace scan stopped at " + b.f.ws.truncated_at + " after " +
                           std::to_string(b.f.ws.entries) + " entries: repositories below it are not protected");
  for (const auto& u : b.f.ws.unreadable)
    b.p.warnings.push_back("could not read " + u + ": repositories in it are not protected");
}

// The host layout: the workspace bind lands at its own path, after the system, $HOME, the tool
// dirs and the grants. What was mounted below that path would be hidden by it: a bind of a host
// path at its own place inside the workspace (the program run, a -m or policy dir in the project)
// shows nothing the workspace bind does not show, and goes; anything else there (blaude's own
// mounts, ~/.config's overlay with the workspace at ~/.config) cannot be put below the
// workspace, and neither can a workspace inside a path the sandbox keeps read-only (Claude Code's
// skills, blaude's config): refused, the seed's layout named as the way out.
bool seed_layout(const Builder& b) { return b.req.seed_workspace || is_under(b.f.home_real, b.f.cwd); }

void at_host_path(Builder& b, const std::string& seed) {
  const std::string& cwd = b.f.cwd;
  const std::string fix = "Run blaude --workspace-path=seed here (the project at " + seed +
                          " only), or start it in another directory.";
  for (const char* own : {"/proc", "/sys", "/dev", "/run/blaude"})
    if (is_under(cwd, own))
      throw PlanError("the project's path " + cwd + " is inside " + own + ", which the sandbox mounts itself", fix);
  std::vector<std::string> gone;
  std::erase_if(b.ops, [&](const MountOp& op) {
    if (op.kind == OpKind::Option || op.kind == OpKind::Dir || op.dest.empty()) return false;
    const std::string dst = normalize(op.dest);
    if (!is_under(dst, cwd)) return false;
    const bool bind = op.kind == OpKind::Bind || op.kind == OpKind::RoBind || op.kind == OpKind::BindTry;
    if (bind && normalize(op.source) == dst) {
      gone.push_back(dst);
      return true;
    }
    throw PlanError("the project's path " + cwd + " holds " + dst + ", which the sandbox mounts itself (" +
                        option_name(op.kind) + ")",
                    fix);
  });
  std::erase_if(b.rw_binds, [&](const auto& rb) {
    return std::find(gone.begin(), gone.end(), rb.second) != gone.end();
  });
  for (const auto& d : gone) b.p.notes.push_back(d + " is in the project, which is mounted there writable already");
  for (const auto* list : {&b.claude_guards, &b.always_guards})
    for (const auto& g : *list)
      if (is_under(cwd, g.path))
        throw PlanError("the project's path " + cwd + " is inside " + g.path + ", which the sandbox keeps read-only (" +
                            g.why + ")",
                        fix);
}

// /workspaces/<dir>: a link to the workspace in bwrap's own root, so the seed's path leads to the
// same directory with the protections on one path. Not where the link would be part of the
// workspace itself (a project at /workspaces, or one of whose own path the link would be part)
// or where a host dir shows /workspaces (the link would be made on the host).
void seed_link(Builder& b, const std::string& seed) {
  const std::string& cwd = b.f.cwd;
  if (seed == cwd || is_under(cwd, seed) || is_under(seed, cwd) || !source_at(b.ops, "/workspaces").empty()) {
    if (seed != cwd) b.p.notes.push_back(seed + " does not lead to the project in this sandbox (the project is at " + cwd + ")");
    return;
  }
  b.add(OpKind::Symlink, cwd, seed);
}

}  // namespace

void add_workspace(Builder& b) {
  const auto& f = b.f;
  if (!b.req.allow_protected_writes && is_under(f.home_real, f.cwd))
    throw PlanError("refusing to use your home directory (or a parent of it) as the workspace: " + f.cwd,
                    "Use a subdirectory instead, --tmp, or --allow-protected-writes to override.");
  const std::string seed = workspace_dest(f.cwd);
  const bool at_seed = seed_layout(b);
  if (at_seed && !b.req.seed_workspace)
    b.p.notes.push_back("the project is your home directory or a parent of it: it is at " + seed +
                        " only (at its own path it would hide the sandbox's home)");
  const std::string w = at_seed ? seed : f.cwd;
  if (!at_seed) at_host_path(b, seed);
  b.rw(f.cwd, w);
  if (!at_seed) seed_link(b, seed);
  // With the scan still running, collect() runs in DeferredProtect::finish().
  if (!b.req.allow_protected_writes && !(f.ws_pending && f.inner_mounts)) {
    warn_links(b);
    collect(b);
  }
  b.option({"--chdir", w});
}

// After every other mount: each guard at every writable alias (the workspace's own bind, a
// writable /tmp, -m DIR:rw, write grants), with pins, either made by the protect helper inside the
// sandbox (plan.inner_mounts + the gate options) or, where it cannot run, as bwrap options.
namespace {

// The helper's mounts: the protections, then the /tmp IPC shadows (plan_ipc.cpp), after any
// pin of an ancestor of theirs (check_inner_mounts' order). A protection inside a shadowed dir
// is left out: the shadow hides that alias of it, and under the tmpfs it would not be found.
void add_shadows(Builder& b, std::vector<InnerMount> protections) {
  std::vector<InnerMount> mounts;
  for (auto& m : protections) {
    bool hidden = false;
    for (const auto& s : b.shadows) hidden |= s.kind == InnerKind::ShadowDir && (m.path == s.path || is_under(m.path, s.path));
    if (!hidden) mounts.push_back(std::move(m));
  }
  mounts.insert(mounts.end(), b.shadows.begin(), b.shadows.end());
  // The lifted binds before them (the protections land in them), /dev first of all: the shadows
  // clone its /dev/null.
  std::vector<InnerMount> lifted;
  for (const auto& op : b.ops)
    if (op.helper) lifted.push_back(*op.helper);
  mounts.insert(mounts.begin(), lifted.begin(), lifted.end());
  if (b.inner_dev) {
    InnerMount dev;
    dev.path = dev.host = "/dev";
    dev.kind = InnerKind::Dev;
    dev.why = "the sandbox's /dev (bwrap's --dev)";
    mounts.insert(mounts.begin(), std::move(dev));
  }
  if (mounts.empty()) return;
  for (auto& op : gate_ops(kInfoToken, kGateToken)) b.add(std::move(op));
  b.p.inner_mounts = std::move(mounts);
}

void lay_out_protections(Builder& b);

// The scan still running: the gate's options now (the helper always runs then), the layout in
// DeferredProtect::finish() over the same state.
void defer_protections(Builder& b) {
  DeferredProtect::State s{b.req, std::make_shared<HostFacts>(b.f), static_cast<const Built&>(b)};
  for (auto& op : gate_ops(kInfoToken, kGateToken)) b.add(std::move(op));
  b.p.deferred = std::make_shared<DeferredProtect>(std::move(s));
}

// The helper fills /dev after every bwrap mount: a mount of bwrap's below /dev would end up
// under the helper's nodes, so then bwrap makes /dev itself (--dev) as before.
void settle_dev(Builder& b) {
  if (!b.inner_dev) return;
  const MountStep* dev = nullptr;  // add_system's --tmpfs /dev, the first mount there
  const auto steps = steps_of(b.ops);
  for (const auto& st : steps) {
    if (!dev && st.op == "--tmpfs" && st.dst == "/dev") {
      dev = &st;
    } else if (dev && is_under(st.dst, "/dev")) {
      b.ops[dev->at].kind = OpKind::Dev;
      b.inner_dev = false;
      return;
    }
  }
}

bool mounts_something(const std::string& op) { return op != "--symlink"; }

// bwrap re-reads the mount table after every bind (~0.15 ms each); the helper binds in
// O(1). A bind is the helper's when that changes nothing of the mount table: nothing of
// bwrap's lands at or below its destination before or after it, no later mount covers it, it
// lands on a tmpfs of bwrap's (its mount point is made in the sandbox only, never on the host),
// and its source is one the probe saw as a canonical path (the helper opens it with no symlink on
// the way and checks it is that object: what the exec shim's mount check held it to before).
void lift_binds(Builder& b) {
  if (!b.f.inner_mounts || b.f.env_or("BLAUDE_LIFT_BINDS") == "off") return;
  const auto steps = steps_of(b.ops);
  for (size_t i = 0; i < steps.size(); ++i) {
    const MountStep& st = steps[i];
    if (st.op != "--bind" && st.op != "--ro-bind" && st.op != "--bind-try") continue;
    if (st.src.empty() || st.dst == "/" || !checkable_source(b, st.src)) continue;
    bool ok = true;
    const MountStep* parent = nullptr;
    for (size_t j = 0; j < steps.size() && ok; ++j) {
      if (j == i) continue;
      const MountStep& o = steps[j];
      if (is_under(o.dst, st.dst)) ok = false;  // at or below it, before or after
      else if (is_under(st.dst, o.dst) && mounts_something(o.op)) {
        if (j > i) ok = false;  // covers it
        else parent = &o;       // the last one before is what it lands on
      }
    }
    if (!ok || (parent && parent->op != "--tmpfs")) continue;
    Identity id;
    if (st.src == b.f.cwd && b.f.cwd_id.type) {
      id = b.f.cwd_id;
    } else if (auto it = b.f.ws.ids.find(st.src); it != b.f.ws.ids.end() && it->second.type) {
      id = it->second;
    } else {
      const Kind k = b.f.at(st.src).lkind;
      if (k != Kind::Dir && k != Kind::File) continue;
      id.type = k == Kind::Dir ? S_IFDIR : S_IFREG;  // dev and ino: the launcher's record
    }
    InnerMount m;
    m.path = st.dst;
    m.kind = st.op == "--ro-bind" ? InnerKind::RoBind : InnerKind::Bind;
    m.id = id;
    m.host = st.src;
    m.why = "bwrap's " + st.op;
    m.if_gone = st.op == "--bind-try";
    b.ops[st.at].helper = std::move(m);
  }
}

}  // namespace

void add_protections(Builder& b) {
  settle_dev(b);
  lift_binds(b);
  if (b.f.ws_pending && b.f.inner_mounts) return defer_protections(b);
  lay_out_protections(b);
}

namespace {

void lay_out_protections(Builder& b) {
  // With the protections off (or no workspace), only the guards of every mode: blaude's own config.
  const bool off = b.req.allow_protected_writes || b.req.tmp;
  std::vector<HostGuard> guards = off ? std::vector<HostGuard>{} : b.guards;
  guards.insert(guards.end(), b.always_guards.begin(), b.always_guards.end());
  // Claude Code's programs (plan.cpp add_claude_code_guards): ~/.claude is writable under --tmp too.
  guards.insert(guards.end(), b.claude_guards.begin(), b.claude_guards.end());
  if (guards.empty() && off) return add_shadows(b, {});
  std::vector<Alias> aliases;
  for (const auto& [src, dst] : b.rw_binds) aliases.push_back({src, dst});
  const auto& ids = b.f.ws.ids;
  const auto steps = steps_of(b.ops);
  std::vector<std::string> overlays;
  for (const auto& st : steps)
    if (st.op == "--tmp-overlay" || st.op == "--overlay" || st.op == "--ro-overlay") overlays.push_back(st.dst);
  // bwrap < 0.9: the overlays blaude makes itself before bwrap (probe/confine.hpp), bound by bwrap.
  overlays.insert(overlays.end(), b.p.confine.overlays.begin(), b.p.confine.overlays.end());
  const auto source_of = source_table(b.ops);  // the ops do not change below
  // In the seed's layout a workspace under /tmp is also writable through the sandbox's rw /tmp at
  // its host path (in the host layout its own bind is that path):
  // there the helper clones the workspace's own bind with every protection in it (one Mirror,
  // protect_layout.hpp) instead of mounting every guard again, unless something is mounted
  // below it there (a -m DIR:rw inside the workspace: the clone would hide that mount). Then,
  // and in the bwrap-option form (bwrap cannot bind a sandbox path): every guard, as before.
  std::string view_alias;
  if (!off && b.f.inner_mounts && is_under(b.f.cwd, "/tmp") && seed_layout(b)) {
    view_alias = "/tmp";
    for (const auto& st : steps)
      if (is_under(st.dst, b.f.cwd) && st.dst != b.f.cwd) view_alias.clear();
    for (const auto& d : overlays)
      if (is_under(d, b.f.cwd)) view_alias.clear();
  }
  auto layout = layout_protections(guards, aliases, off ? std::string() : b.f.cwd, [&](const std::string& p) -> std::optional<Identity> {
    auto it = ids.find(p);
    if (it != ids.end() && it->second.type != 0) return it->second;
    // The helper cannot mount what it cannot check. The held binds of the fallback check what
    // they can: with no identity, only that no symlink is on the path (held.hpp).
    if (!b.f.inner_mounts) return Identity{};
    return std::nullopt;
  }, [&](const std::string& sandbox, const std::string& host) {
    // An overlay shows a copy, not the host object: nothing below one is an alias.
    for (const auto& d : overlays)
      if (sandbox == d || is_under(sandbox, d)) return false;
    return source_of(sandbox) == host;
  }, view_alias);
  if (!layout.missing.empty())
    throw PlanError("the workspace changed while blaude was starting (" + layout.missing.front() + ")",
                    "Run blaude again. If it keeps happening, please report it with the output of `blaude --dry-run`.");
  if (b.f.inner_mounts) {
    add_shadows(b, std::move(layout.mounts));
  } else if (!layout.mounts.empty()) {
    std::vector<std::pair<std::string, std::string>> left_out;
    auto kept = expressible_as_options(steps, layout.mounts, left_out);
    for (const auto& [path, below] : left_out)
      b.p.warnings.push_back(path + " is not pinned: as a bwrap option it would hide " + below);
    b.p.unpinned.insert(b.p.unpinned.end(), left_out.begin(), left_out.end());
    // Each bind is made from a descriptor checked against the probe (plan_held.cpp); a missing
    // dir is created by the launcher and held the same way (a --tmpfs on it would follow a
    // symlink planted there meanwhile), bound read-only: it is empty, and stays so for the sandbox.
    for (const auto& m : kept) {
      b.held_binds.insert({m.host, m.path});
      if (m.kind == InnerKind::EmptyDir) b.made_dirs[m.host] = m.id;
    }
    for (auto& op : as_bwrap_ops(kept, /*empty_dirs_as_binds=*/true)) b.add(std::move(op));
  }
}

}  // namespace

}  // namespace blaude::sandbox::bwrap::detail

namespace blaude::sandbox::bwrap {

void wait_for_scan(HostFacts& f) {
  if (!f.ws_pending) return;
  // The user's /tmp sockets first, on this thread, while the workspace scan's thread still runs.
  if (const UserSockets* us = f.ws_pending->sockets()) merge_user_sockets(f, *us);
  WorkspaceScan ws = f.ws_pending->result();
  // The identities the rest of the probe recorded (blaude's own dirs, Claude's programs, the
  // workspace's parents) are what plan() used: kept over the scan's later lstat of the same path.
  std::map<std::string, Identity> earlier = std::move(f.ws.ids);
  f.ws = std::move(ws);
  for (auto& [path, id] : earlier) f.ws.ids.insert_or_assign(path, id);
  f.ws_pending.reset();
}

const DeferredProtect::Result& DeferredProtect::finish() {
  using namespace detail;
  if (done_) return r_;
  done_ = true;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  HostFacts& f = *s_.facts;
  // plan() passed on the probe's warnings before the scan's: what the scan adds is new.
  const size_t probe_warnings = f.probe_warnings.size();
  try {
    wait_for_scan(f);
    const auto t1 = clock::now();
    r_.wait_us = std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count();
    Builder b{s_.req, f, s_.built};
    // Its own warnings and notes were printed with the plan; the layout's are new.
    b.p.notes.clear();
    b.p.warnings.assign(f.probe_warnings.begin() + long(std::min(probe_warnings, f.probe_warnings.size())),
                        f.probe_warnings.end());
    // The user's /tmp sockets, found with the scan: their shadows where plan() would have put them.
    if (const auto at = b.user_sockets_at; at && *at <= b.shadows.size()) {
      std::vector<InnerMount> after(b.shadows.begin() + long(*at), b.shadows.end());
      b.shadows.resize(*at);
      add_user_sockets(b);
      b.shadows.insert(b.shadows.end(), after.begin(), after.end());
    }
    if (!s_.req.allow_protected_writes && !s_.req.tmp) {
      warn_links(b);
      collect(b);
    }
    lay_out_protections(b);
    r_.mounts = std::move(b.p.inner_mounts);
    r_.warnings = std::move(b.p.warnings);
    r_.notes = std::move(b.p.notes);
    r_.scan = std::make_shared<const WorkspaceScan>(f.ws);
    r_.layout_us = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t1).count();
  } catch (const PlanError& e) {
    r_.error = e.what();
    r_.hint = e.hint;
  } catch (const std::exception& e) {
    r_.error = std::string("the workspace scan failed: ") + e.what();
  }
  return r_;
}

}  // namespace blaude::sandbox::bwrap
