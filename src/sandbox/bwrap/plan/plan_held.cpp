// Probe-then-mount, for bwrap's own binds: a source path the probe looked at
// can be swapped (a dir for a symlink to $HOME, a socket for a link) before bwrap mounts it.
// The protections made as bwrap options (where the protect helper cannot run) and the /tmp
// socket-file shadows are handed to bwrap as descriptors the launcher opened without following
// any symlink and checked against the probe (held.hpp); bwrap checks the mount's destination
// against the same descriptor. The other binds (system dirs, tool dirs, the workspace's own
// bind) are still made by path: see /work/notes/guard-design.md for what that leaves.
#include <sys/stat.h>

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

}  // namespace

void add_held_binds(Builder& b) {
  // Where each op will stand in the argv (the binds lifted to the helper are not in it).
  for (const auto& st : steps_of(b.ops, 1, /*count_helper=*/false)) {
    if ((st.op != "--bind" && st.op != "--ro-bind") || st.src.empty()) continue;
    if (b.ops[st.at].source != st.src || !b.held_binds.count({st.src, st.dst})) continue;
    if (auto m = b.made_dirs.find(st.src); m != b.made_dirs.end()) {
      b.p.held.push_back({st.index, st.src, m->second, true});
    } else if (st.src == "/dev/null") {  // the shadow over a socket file: where it lands matters
      b.p.held.push_back({st.index, st.src, Identity{0, 0, S_IFCHR}, false});
    } else if (auto it = b.f.ws.ids.find(st.src); it != b.f.ws.ids.end() && it->second.type != 0) {
      b.p.held.push_back({st.index, st.src, it->second, false});
    } else {
      const PathFact& pf = b.f.at(st.src);
      b.p.held.push_back({st.index, st.src, Identity{0, 0, type_of(pf.lkind)}, false});
    }
  }
  if (b.p.held.empty()) return;
  // No descriptor form (bwrap < 0.5): binding these by path is the probe-then-mount race the
  // held binds close, so refuse rather than fall back to it.
  if (!b.f.fd_binds)
    throw PlanError(b.f.bwrap + " cannot bind from a descriptor (--ro-bind-fd needs bubblewrap 0.5 or newer): " +
                        std::to_string(b.p.held.size()) + " mounts (first " + b.p.held.front().host +
                        ") would be made by path, racing with whatever renames them",
                    "Install bubblewrap 0.5 or newer, or put a newer bwrap first on PATH.");
  b.dir("/run/blaude");
  b.add(OpKind::File, kSetupDoneToken, kSetupDoneFile);
  b.p.data_fds.push_back({kSetupDoneToken, "blaude: every mount before this one was made\n"});
}

}  // namespace blaude::sandbox::bwrap::detail
