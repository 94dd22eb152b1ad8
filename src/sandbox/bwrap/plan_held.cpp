// Probe-then-mount, for bwrap's own binds (issue 11 class 4): a source path the probe looked at
// can be swapped (a dir for a symlink to $HOME, a socket for a link) before bwrap mounts it.
// Every bind whose source the probe saw as a real file, dir or socket at its canonical path is
// handed to bwrap as a descriptor the launcher opened without following any symlink and checked
// against the probe (held.hpp); bwrap checks the mount's destination against the same
// descriptor. Sources the probe did not see, or saw through a symlink (system links such as
// /etc/resolv.conf, which the user cannot change), stay plain binds.
#include <sys/stat.h>

#include "sandbox/bwrap/held.hpp"
#include "sandbox/bwrap/mount_order.hpp"
#include "sandbox/bwrap/plan_builder.hpp"

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
  for (const auto& st : mount_steps(b.p.argv)) {
    if ((st.op != "--bind" && st.op != "--ro-bind") || st.src.empty()) continue;
    if (b.p.argv[st.index + 1] != st.src) continue;  // not in canonical form: left alone
    if (auto m = b.made_dirs.find(st.src); m != b.made_dirs.end()) {
      b.p.held.push_back({st.index, st.src, m->second, true});
      continue;
    }
    if (st.src == "/dev/null") {  // the shadow over a socket file: only where it lands matters
      b.p.held.push_back({st.index, st.src, Identity{0, 0, S_IFCHR}, false});
      continue;
    }
    if (auto it = b.f.ws.ids.find(st.src); it != b.f.ws.ids.end() && it->second.type != 0) {
      b.p.held.push_back({st.index, st.src, it->second, false});
      continue;
    }
    const PathFact& pf = b.f.at(st.src);
    unsigned t = type_of(pf.lkind);
    if (t && pf.lkind == pf.kind && pf.real == st.src) b.p.held.push_back({st.index, st.src, Identity{0, 0, t}, false});
  }
  if (b.p.held.empty()) return;
  b.add({"--dir", "/run/blaude", "--file", kSetupDoneToken, kSetupDoneFile});
  b.p.data_fds.push_back({kSetupDoneToken, "blaude: every mount before this one was made\n"});
}

}  // namespace blaude::sandbox::bwrap::detail
