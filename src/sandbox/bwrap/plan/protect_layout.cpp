#include "sandbox/bwrap/plan/protect_layout.hpp"

#include "common/paths.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace blaude::sandbox::bwrap {

namespace {

bool within(const std::string& p, const std::string& root) {
  if (p == root) return true;
  if (root == "/") return p.size() > 1 && p[0] == '/';
  return p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/';
}
std::string parent(const std::string& p) {
  auto k = p.rfind('/');
  return k == 0 || k == std::string::npos ? "/" : p.substr(0, k);
}
std::string rebase(const std::string& p, const Alias& a) {
  if (p == a.host) return a.sandbox;
  return (a.sandbox == "/" ? "" : a.sandbox) + p.substr(a.host == "/" ? 0 : a.host.size());
}

struct Want {
  InnerKind kind;
  std::string host;
  std::string why;
};

// host path → what to mount there; a guard wins over a pin on the same path.
// `view`: the alias shows the workspace incidentally (the rw /tmp bind around a workspace under
// /tmp): the workspace there is ONE mirror of its own bind instead of a copy of every guard.
// `own`: where the workspace's own bind is in the sandbox; an alias that shows the workspace at
// that very path (the rw /tmp around a workspace at its host path) is covered there by the own
// bind: its guards are the own bind's, and only the dirs above the workspace need pins.
std::map<std::string, Want> wanted_on_host(const std::vector<HostGuard>& guards, const Alias& a, const std::string& ws,
                                           bool view, const std::string& own = {}) {
  std::map<std::string, Want> w;
  auto pin_up_to_root = [&](std::string d) {
    for (; within(d, a.host) && d != a.host; d = parent(d)) w.emplace(d, Want{InnerKind::Pin, d, "keeps a protected path below it in place"});
  };
  const bool own_there = !ws.empty() && within(ws, a.host) && ws != a.host && !own.empty() && rebase(ws, a) == own;
  view = view && !own_there && !ws.empty() && within(ws, a.host) && ws != a.host;
  if (view) {
    // The workspace's own bind, every protection in it, cloned there (after them): the same view
    // by this path, a mount point (cannot be renamed away); the dirs above it pinned as before.
    w[ws] = Want{InnerKind::Mirror, ws, "the workspace seen through " + a.sandbox + " (the protected view of it)"};
    pin_up_to_root(parent(ws));
  }
  for (const auto& g : guards) {
    if (!within(g.path, a.host) || g.path == a.host) continue;
    if ((view || own_there) && within(g.path, ws)) continue;  // inside the read-only view, or the own bind's
    InnerKind k = g.guard == Guard::EmptyDir ? InnerKind::EmptyDir : InnerKind::ReadOnly;
    w[g.path] = Want{k, g.path, g.why};
    pin_up_to_root(parent(g.path));
  }
  // The workspace seen through a wider writable bind (/tmp, -m DIR:rw): pinned with the dirs above
  // it, or it could be renamed and a copy with hooks put in its place.
  if (within(ws, a.host) && ws != a.host) pin_up_to_root(own_there ? parent(ws) : ws);
  return w;
}

}  // namespace

ProtectLayout layout_protections(const std::vector<HostGuard>& guards, const std::vector<Alias>& aliases,
                                 const std::string& workspace, const IdentityOf& identity, const Shows& shows,
                                 const std::string& view_alias) {
  ProtectLayout out;
  std::map<std::string, InnerMount> by_path;
  // The workspace's own bind (/workspaces/X): what a mirror clones.
  std::string own;
  for (const auto& a : aliases)
    if (a.host == workspace && !workspace.empty()) own = a.sandbox;
  std::vector<InnerMount> mirrors;
  for (const auto& a : aliases) {
    for (auto& [host, want] : wanted_on_host(guards, a, workspace, !own.empty() && !view_alias.empty() && a.host == view_alias, a.host == workspace ? std::string() : own)) {
      // Not an alias there: a later mount covers the path (and with it the host object).
      if (shows && !shows(rebase(want.kind == InnerKind::EmptyDir ? parent(host) : host, a),
                          want.kind == InnerKind::EmptyDir ? parent(host) : host))
        continue;
      std::string id_path = want.kind == InnerKind::EmptyDir ? parent(host) : host;
      auto id = identity(id_path);
      if (!id) {
        out.missing.push_back(id_path);
        continue;
      }
      InnerMount m{rebase(host, a), want.kind, *id, host, want.why, want.kind == InnerKind::Mirror ? own : ""};
      if (m.kind == InnerKind::Mirror) {
        mirrors.push_back(std::move(m));
      } else {
        by_path.emplace(m.path, std::move(m));
      }
    }
  }
  // Sorted by sandbox path, ancestors first; nothing inside a read-only or empty dir (the clone
  // already covers it, and a writable pin there would punch a hole in it).
  std::string covered;
  for (auto& [path, m] : by_path) {
    if (!covered.empty() && within(path, covered)) continue;
    if (m.kind != InnerKind::Pin) covered = path;
    out.mounts.push_back(std::move(m));
  }
  // Last: a mirror clones its source with everything mounted in it. Whatever was listed inside
  // its path goes (the mirror covers it).
  for (auto& mi : mirrors) {
    std::erase_if(out.mounts, [&](const InnerMount& m) { return within(m.path, mi.path); });
    out.mounts.push_back(std::move(mi));
  }
  std::sort(out.missing.begin(), out.missing.end());
  out.missing.erase(std::unique(out.missing.begin(), out.missing.end()), out.missing.end());
  return out;
}

std::vector<std::string> paths_to_identify(const std::vector<HostGuard>& guards, const std::vector<Alias>& aliases,
                                           const std::string& workspace) {
  std::set<std::string> out;
  for (const auto& a : aliases)
    for (auto& [host, want] : wanted_on_host(guards, a, workspace, false))
      out.insert(want.kind == InnerKind::EmptyDir ? parent(host) : host);
  return {out.begin(), out.end()};
}

Ops as_bwrap_ops(const std::vector<InnerMount>& mounts, bool empty_dirs_as_binds) {
  Ops o;
  for (size_t i = 0; i < mounts.size(); ++i) {
    const InnerMount& m = mounts[i];
    const size_t from = o.size();
    switch (m.kind) {
      case InnerKind::Mirror: {
        // As options: the workspace pinned at the path, then every earlier mount in `from` again
        // there (what the clone carries), from the same host objects.
        o.push_back(mount_op(OpKind::Bind, m.host, m.path));
        std::vector<InnerMount> again;
        for (size_t j = 0; j < i; ++j)
          if (within(mounts[j].path, m.from) && mounts[j].path != m.from && mounts[j].kind != InnerKind::Mirror) {
            InnerMount r = mounts[j];
            r.path = m.path + mounts[j].path.substr(m.from.size());
            again.push_back(std::move(r));
          }
        for (auto& a : as_bwrap_ops(again, empty_dirs_as_binds)) o.push_back(std::move(a));
        break;
      }
      case InnerKind::ReadOnly: o.push_back(mount_op(OpKind::RoBind, m.host, m.path)); break;
      case InnerKind::Pin: o.push_back(mount_op(OpKind::Bind, m.host, m.path)); break;
      case InnerKind::ShadowFile: o.push_back(mount_op(OpKind::RoBind, "/dev/null", m.path)); break;
      case InnerKind::ShadowDir: o.push_back(mount_op(OpKind::Tmpfs, "", m.path)); break;
      case InnerKind::Dev: o.push_back(mount_op(OpKind::Dev, "", m.path)); break;
      case InnerKind::Bind: o.push_back(mount_op(m.if_gone ? OpKind::BindTry : OpKind::Bind, m.host, m.path)); break;
      case InnerKind::RoBind: o.push_back(mount_op(OpKind::RoBind, m.host, m.path)); break;
      case InnerKind::EmptyDir:
        if (empty_dirs_as_binds) {
          o.push_back(mount_op(OpKind::RoBind, m.host, m.path));
        } else {
          o.push_back(mount_op(OpKind::Tmpfs, "", m.path));
          o.push_back(mount_op(OpKind::RemountRo, "", m.path));
        }
        break;
    }
    // The protection is the first op it became (a Mirror's copies are marked on their own).
    if (from < o.size() && *protection_what(m.kind)) o[from].protects = MountOp::Protects{protection_what(m.kind), m.why};
  }
  return o;
}

std::vector<std::string> as_bwrap_options(const std::vector<InnerMount>& mounts, bool empty_dirs_as_binds) {
  return render(as_bwrap_ops(mounts, empty_dirs_as_binds));
}

std::vector<InnerMount> expressible_as_options(const std::vector<MountStep>& steps,
                                               const std::vector<InnerMount>& mounts,
                                               std::vector<std::pair<std::string, std::string>>& left_out) {
  std::vector<std::string> dsts;
  for (const auto& st : steps) dsts.push_back(st.dst);
  std::vector<InnerMount> kept;
  for (const auto& m : mounts) {
    auto below = std::find_if(dsts.begin(), dsts.end(), [&](const std::string& d) { return is_under(d, m.path) && d != m.path; });
    if (below == dsts.end()) {
      kept.push_back(m);
    } else {
      left_out.emplace_back(m.path, *below);
    }
  }
  return kept;
}

}  // namespace blaude::sandbox::bwrap
