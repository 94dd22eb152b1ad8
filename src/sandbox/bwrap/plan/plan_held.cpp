// Probe-then-mount, for bwrap's own binds: a source path the probe looked at
// can be swapped (a dir for a symlink to $HOME, a socket for a link) before bwrap mounts it.
// The protections made as bwrap options (where the protect helper cannot run) and the /tmp
// socket-file shadows are handed to bwrap as descriptors the launcher opened without following
// any symlink and checked against the probe (held.hpp); bwrap checks the mount's destination
// against the same descriptor. The other binds (system dirs, tool dirs, the workspace's own
// bind) are still made by path: see /work/notes/guard-design.md for what that leaves.
#include <sys/stat.h>

#include "common/paths.hpp"

#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

unsigned type_of(Kind k) {
  switch (k) {
    case Kind::Dir: return S_IFDIR;
    case Kind::File: return S_IFREG;
    case Kind::Socket: return S_IFSOCK;
    default: return 0;
  }
}

std::string first_held(const Ops& ops) {
  for (const auto& op : ops)
    if (op.held) return op.held->host;
  return {};
}

}  // namespace

void add_held_binds(Builder& b) {
  // The binds lifted to the helper are not bwrap's to make.
  size_t n = 0;
  for (auto& op : b.ops) {
    if ((op.kind != OpKind::Bind && op.kind != OpKind::RoBind) || op.helper) continue;
    const std::string src = normalize(op.source);
    if (src.empty() || op.source != src || !b.held_binds.count({src, normalize(op.dest)})) continue;
    // The argv index is the render's (plan()).
    if (auto m = b.made_dirs.find(src); m != b.made_dirs.end()) {
      op.held = HeldPath{0, src, m->second, true};
    } else if (src == "/dev/null") {  // the shadow over a socket file: where it lands matters
      op.held = HeldPath{0, src, Identity{0, 0, S_IFCHR}, false};
    } else if (auto it = b.f.ws.ids.find(src); it != b.f.ws.ids.end() && it->second.type != 0) {
      op.held = HeldPath{0, src, it->second, false};
    } else {
      const PathFact& pf = b.f.at(src);
      op.held = HeldPath{0, src, Identity{0, 0, type_of(pf.lkind)}, false};
    }
    ++n;
  }
  if (n == 0) return;
  // No descriptor form (bwrap < 0.5): binding these by path is the probe-then-mount race the
  // held binds close, so refuse rather than fall back to it.
  if (!b.f.fd_binds)
    throw PlanError(b.f.bwrap + " cannot bind from a descriptor (--ro-bind-fd needs bubblewrap 0.5 or newer): " +
                        std::to_string(n) + " mounts (first " + first_held(b.ops) +
                        ") would be made by path, racing with whatever renames them",
                    "Install bubblewrap 0.5 or newer, or put a newer bwrap first on PATH.");
  // The launcher's business, not the command's: --dry-run leaves both out.
  b.dir("/run/blaude");
  b.ops.back().launcher_only = true;
  b.add(OpKind::File, kSetupDoneToken, kSetupDoneFile);
  b.ops.back().launcher_only = true;
  b.p.data_fds.push_back({kSetupDoneToken, "blaude: every mount before this one was made\n"});
}

}  // namespace blaude::sandbox::bwrap::detail
