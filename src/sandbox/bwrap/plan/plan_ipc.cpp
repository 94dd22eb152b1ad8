// Host IPC in the mount table and blaude's own config: the seed's /tmp
// socket names whatever their kind, the user's tmux socket dir (made on the host when missing,
// so that the sandbox cannot squat it), --git's gpg binds, the read-only ~/.config/blaude, and
// the confinement blaude applies before bwrap (keyring, Landlock, its own overlays).
#include <sys/stat.h>

#include <algorithm>

#include "common/paths.hpp"
#include "common/shown.hpp"
#include "sandbox/bwrap/probe/confine.hpp"
#include "sandbox/bwrap/probe/gpg.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "sandbox/bwrap/probe/probe_ipc.hpp"

namespace blaude::sandbox::bwrap::detail {

namespace {

bool visible(const Builder& b, const std::string& path) { return !source_at(b.ops, path).empty(); }

// What the /tmp probe saw at `path`; only the type where it has no record (facts made by hand).
Identity tmp_id(const Builder& b, const std::string& path, unsigned type) {
  auto it = b.f.tmp_ids.find(path);
  return it != b.f.tmp_ids.end() ? it->second : Identity{0, 0, type};
}

// A socket dir's shadow: an empty writable tmpfs, by the protect helper on the checked object
// (id) where it runs, else as a bwrap --tmpfs.
void shadow_dir(Builder& b, const std::string& d, const Identity& id) {
  if (b.f.inner_mounts) {
    b.shadows.push_back({d, InnerKind::ShadowDir, id, d, "host sockets in /tmp", ""});
  } else {
    const size_t from = b.ops.size();
    b.tmpfs(d);
    b.protects_since(from, "hidden (empty tmpfs)", "host sockets in /tmp");
  }
}

// The dir is shadowed with an empty tmpfs; when missing it is created 0700 on the host first
// (tmux would create it the same way), so the sandbox can never put a server there.
void shadow_tmux_dir(Builder& b) {
  const std::string& d = b.f.ipc.tmux_dir;
  if (d.empty() || std::find(b.f.tmp_socket_dirs.begin(), b.f.tmp_socket_dirs.end(), d) != b.f.tmp_socket_dirs.end())
    return;  // already shadowed with the seed's names
  const PathFact& pf = b.f.at(d);
  if (pf.lkind == Kind::Symlink || pf.lkind == Kind::File || pf.lkind == Kind::Socket || pf.lkind == Kind::Other) {
    b.p.warnings.push_back(d + " (tmux's socket dir) is not a directory; it is not shadowed");
    return;
  }
  if (b.f.at(dirname_of(d)).kind != Kind::Dir || !visible(b, dirname_of(d))) return;
  if (pf.lkind == Kind::Missing)
    b.p.preparations.push_back({HostPrep::Kind::MakeDir, d, 0700, "", false,
                                "tmux's socket dir, so that the sandbox cannot start a server there"});
  // Made by the preparation after the probe: only its type is known (no symlink on the way).
  Identity id = b.f.at(d).lkind == Kind::Dir && b.f.ws.ids.count(d) ? b.f.ws.ids.at(d) : Identity{0, 0, S_IFDIR};
  shadow_dir(b, d, id);
}

}  // namespace

// The user's own sockets elsewhere in /tmp (probe/probe_ipc.cpp: servers that trust their own user),
// /dev/null over each as over a seed-named bare socket, except what an option hands in on
// purpose: --ssh's agent, --keyring's bus, --git's gpg agent, and sockets in a -m dir.
void add_user_sockets(Builder& b) {
  // Still being scanned beside the workspace (HostFacts::probe): DeferredProtect::finish() calls
  // this again with them, and puts their shadows here among the others.
  if (b.f.tmp_user_sockets_pending) {
    b.user_sockets_at = b.shadows.size();
    return;
  }
  std::vector<std::string> wanted;
  if (b.req.ssh) {
    if (std::string s = b.f.env_or("SSH_AUTH_SOCK"); !s.empty() && s[0] == '/') wanted.push_back(normalize(s));
    if (!b.f.ssh_agent_dir.empty()) wanted.push_back(b.f.ssh_agent_dir);
  }
  if (b.req.keyring) wanted.push_back(dbus_socket_path(b.f));
  if (b.req.git) wanted.push_back(gpg_binds(b.f.ipc.gpg_dirs).agent_source);
  for (const auto& m : b.f.mount_paths) wanted.push_back(m);
  // A dir of the user's with sockets only: one tmpfs over it (one mount for any number of
  // sockets, and a socket made there after the start lands in the sandbox's own tmpfs), unless
  // something wanted is in it or it is in something wanted. By the helper only, passed over when
  // the dir is gone or replaced by then (if_same), as the sockets are.
  std::vector<std::string> whole;
  if (b.f.inner_mounts)
    for (const auto& d : b.f.tmp_user_socket_dirs) {
      bool keep = false;
      for (const auto& w : wanted) {
        if (w.empty()) continue;
        const std::string& real = b.f.at(w).real;
        keep |= w == d || is_under(w, d) || is_under(d, w) || (!real.empty() && (real == d || is_under(real, d)));
      }
      if (keep) continue;
      InnerMount m{d, InnerKind::ShadowDir, tmp_id(b, d, S_IFDIR), d, "your own socket dir in /tmp", ""};
      m.if_same = true;
      b.shadows.push_back(m);
      whole.push_back(d);
    }
  std::vector<std::string> unshadowed;
  for (const auto& f : b.f.tmp_user_sockets) {
    if (std::any_of(whole.begin(), whole.end(), [&](const std::string& d) { return is_under(f, d); })) continue;
    bool keep = false;
    for (const auto& w : wanted) keep |= !w.empty() && (f == w || is_under(f, w));
    for (const auto& w : wanted) keep |= !w.empty() && b.f.at(w).real == f;  // a link to it
    if (keep) continue;
    // Only by the helper: as a bwrap option, a socket removed since the probe would stop the
    // start (bwrap cannot pass over a missing destination), and sockets come and go. Stated.
    if (!b.f.inner_mounts) {
      unshadowed.push_back(f);
      continue;
    }
    InnerMount m{f, InnerKind::ShadowFile, tmp_id(b, f, S_IFSOCK), f, "your own socket in /tmp", ""};
    m.if_same = true;
    b.shadows.push_back(m);
  }
  if (!unshadowed.empty())
    b.p.warnings.push_back(std::to_string(unshadowed.size()) + " socket(s) of yours in /tmp (first " + unshadowed.front() +
                           ") stay reachable from the sandbox: blaude cannot mount inside it here; --clear-tmp closes them");
}

void add_tmp_ipc(Builder& b) {
  if (b.req.clear_tmp || b.req.allow_protected_writes) return;
  if (!b.f.tmp_changed.empty())
    throw PlanError(b.f.tmp_changed.front() + " changed while blaude was starting, in each of its listings of /tmp "
                        "(renamed, or removed and made again)",
                    "Run blaude again. If it keeps happening, something keeps replacing it: find out what.");
  for (const auto& l : b.f.tmp_socket_links)
    b.p.warnings.push_back(l + " is a symlink: not shadowed (a mount on it would land on what it names); "
                           "a host socket renamed to it later is reachable from the sandbox");
  // Only names that exist: a --tmpfs on a missing path under the host /tmp would create it.
  // (--ssh's own agent dir is bound instead, later: no shadow for that bind to hide.)
  // With the protect helper (run/protect_gate.hpp) every shadow is mounted on the object the probe
  // listed, opened with no symlink on the way and checked (dev, ino, type), or the launch
  // refuses; as bwrap options (the fallback), dirs get --tmpfs (which follows a symlink swapped
  // in since the probe: not closed there) and files the held /dev/null bind below.
  for (const auto& d : b.f.tmp_socket_dirs)
    if (!(b.req.ssh && d == b.f.ssh_agent_dir)) {
      shadow_dir(b, d, tmp_id(b, d, S_IFDIR));
      // launch_plan.hpp: a name removed since is passed over. Not the user's tmux dir: it must
      // exist, shadowed, for the whole session, or the sandbox could make it and start a server
      // there that the user's tmux would attach to (shadow_tmux_dir); gone by the helper's turn,
      // the launch still refuses.
      if (b.f.inner_mounts && d != b.f.ipc.tmux_dir) b.shadows.back().if_gone = true;
    }
  // A bare socket (dbus-launch's /tmp/dbus-XXXX) or file: /dev/null over it refuses connect(),
  // and a mount point cannot be unlinked or renamed from inside.
  for (const auto& f : b.f.tmp_socket_files) {
    if (b.f.inner_mounts) {
      b.shadows.push_back({f, InnerKind::ShadowFile, tmp_id(b, f, S_IFSOCK), f, "a host socket in /tmp", ""});
      b.shadows.back().if_gone = true;
      continue;
    }
    // Held (plan_held.cpp): bwrap checks that the shadow landed on the name itself, not on what a
    // symlink swapped in since the probe points to.
    const size_t from = b.ops.size();
    b.ro("/dev/null", f);
    b.protects_since(from, "hidden (/dev/null)", "a host socket in /tmp");
    b.held_binds.insert({"/dev/null", f});
  }
  if (is_under(b.f.ipc.tmux_dir, "/tmp")) shadow_tmux_dir(b);
  add_user_sockets(b);
}

void add_ipc_late(Builder& b) {
  // TMUX_TMPDIR elsewhere (the workspace, a -m DIR:rw): after the mounts that show it.
  if (!b.req.allow_protected_writes && !is_under(b.f.ipc.tmux_dir, "/tmp")) shadow_tmux_dir(b);
  // blaude's own dirs (probe/probe_ipc.hpp: config, cache, log) are read-only in every mode: a
  // planted user policy would be applied by the next session without a prompt, a planted cache
  // answer would weaken it, a planted link in the log dir would redirect blaude's appends. Guards
  // of the protect layout (protect.cpp): read-only at every alias through which they are
  // writable (a host-writable ~/.config, -m DIR:rw, a write grant, the workspace), pinned above;
  // a missing config dir is made empty there and kept empty (the cache and log dirs: below).
  // Nothing where no alias shows them (the tmpfs $HOME, an overlay): no mount by default.
  for (const auto& d : own_dirs(b.f)) {
    const std::string host = own_dir_host(b.f, d.path);
    if (host.empty()) continue;
    const PathFact& pf = b.f.at(d.path);
    if (pf.lkind == Kind::Missing && d.path != b.f.ipc.config_dir) {
      // blaude makes its cache and log dirs itself before the sandbox starts (the feature cache,
      // the log), so "missing, kept empty" would meet a full dir: made here first (0700, as it
      // would), then read-only like a present one.
      b.p.preparations.push_back({HostPrep::Kind::MakeDir, host, 0700, "", true, d.why});
      b.always_guards.push_back({host, Guard::ReadOnly, d.why});
    } else if (pf.lkind == Kind::Missing) {
      b.always_guards.push_back({host, Guard::EmptyDir, d.why});
    } else if (pf.lkind == Kind::Dir) {
      b.always_guards.push_back({host, Guard::ReadOnly, d.why});
    } else {
      throw PlanError(d.path + " is not a directory", std::string("It is ") + d.why + "; move it away.");
    }
  }
}

// --git: what signing needs and nothing more: the agent's restricted socket where gpg inside
// looks for the agent, and the public keyring. Not the ssh socket, not private-keys-v1.d.
void add_gpg(Builder& b) {
  if (!b.f.ipc.gpg_problem.empty()) {
    b.p.warnings.push_back("--git: no gpg signing in the sandbox: " + b.f.ipc.gpg_problem);
    return;
  }
  const GpgBinds g = gpg_binds(b.f.ipc.gpg_dirs);
  if (!g.problem.empty() || b.f.at(g.agent_source).kind != Kind::Socket) {
    b.p.warnings.push_back("--git: no gpg signing in the sandbox: " +
                           (g.problem.empty() ? g.agent_source + " is not a socket (is gpg-agent running?)" : g.problem));
    return;
  }
  // gpg ignores a socket dir that is not 0700 and owned by the user, and then looks elsewhere.
  for (const auto& d : {g.socket_dir, g.homedir})
    if (!d.empty() && !visible(b, d)) b.dir(d, "0700");
  b.add(OpKind::Bind, g.agent_source, g.agent_dest);
  // Inside, /run/user/UID always exists (a tmpfs), so gpg looks for the agent there even where
  // the host has no /run/user/UID and keeps it in the home dir: bind it there too.
  const std::string run = "/run/user/" + std::to_string(sandbox_uid(b.f)) + "/gnupg";
  if (!is_under(g.agent_dest, run)) {
    if (g.homedir == b.home(".gnupg")) {
      b.dir(run, "0700");
      b.add(OpKind::Bind, g.agent_source, run + "/S.gpg-agent");
    } else {
      b.p.warnings.push_back("--git: gpg inside may not find the agent (GNUPGHOME is not ~/.gnupg and the host has no " +
                             run + ")");
    }
  }
  for (const auto& f : g.public_files)
    if (b.is_file(f)) b.ro(f, f);
}

// Where blaude cannot make ~/.config write-discarding (bwrap < 0.9 and no unprivileged
// overlayfs for blaude either), what in it runs code at login or at an app's start is read-only.
// Login-time dirs are pinned even when missing (an empty read-only dir); app dirs when present.
// Guards of the protect layout (protect.cpp), so they hold at every alias of ~/.config.
void add_config_fallback_pins(Builder& b, const std::string& cfg) {
  const std::string host = dot_config_host(b.f);
  if (host.empty()) return;
  std::string pinned;
  auto pin = [&](const std::string& rel, bool create) {
    const PathFact& pf = b.f.at(cfg + "/" + rel);
    const std::string why = "~/.config/" + rel + " runs code on the host (bwrap < 0.9: ~/.config is host-writable)";
    if (pf.lkind == Kind::Dir) {
      b.guards.push_back({host + "/" + rel, Guard::ReadOnly, why});
    } else if (pf.lkind == Kind::Missing && create) {
      b.guards.push_back({host + "/" + rel, Guard::EmptyDir, why});
    } else {
      return;
    }
    pinned += (pinned.empty() ? "" : ", ") + rel;
  };
  for (const auto& r : kConfigLoginDirs) pin(r, true);
  for (const auto& r : kConfigAppDirs) pin(r, false);
  b.config_pins = pinned;
}

// The kernel refuses to copy up a lower entry whose owner or group has no mapping in the
// sandbox's user namespace (probe_ipc.hpp scan_config_unmapped), and only the user's own uid
// and gid can be mapped without privilege: no layering of a plain overlay makes such an entry
// write-discarding. So it is read-only on the overlay (EROFS, which programs explain, instead of
// EOVERFLOW, which they do not), and the user is told once per list how to make it theirs.
void add_config_unmapped(Builder& b, const std::string& at) {
  const auto& v = b.f.ipc.config_unmapped;
  const std::string host = dot_config_host(b.f);
  if (v.empty() || host.empty()) return;
  std::string list, fix;
  bool other_owner = false;
  for (const auto& e : v) {
    const std::string dst = at + "/" + e.rel;
    b.ro(host + "/" + e.rel, dst);
    b.soft_binds.insert(dst);
    list += "\n  " + shown(dst) + " (" + (e.dir ? "dir" : "file") + ", owner " + std::to_string(e.uid) + ", group " +
            std::to_string(e.gid) + ")";
    fix += " " + shell_word_shown(dst);
    other_owner = other_owner || e.uid != b.f.uid;
  }
  if (b.f.ipc.config_unmapped_more)
    list += "\n  and " + std::to_string(b.f.ipc.config_unmapped_more) + " more, left as they are (writes there fail with EOVERFLOW)";
  const size_t n = v.size() + b.f.ipc.config_unmapped_more;
  std::string w = std::to_string(n) + (n == 1 ? " entry" : " entries") + " in " + shown(at) +
                  (n == 1 ? " belongs" : " belong") + " to another user or group than yours (" + std::to_string(b.f.uid) + ":" +
                  std::to_string(b.f.gid) + "). The sandbox's user namespace cannot map them, so the kernel's " +
                  "overlayfs cannot copy them up and a write to or into them fails with EOVERFLOW (\"Value too " +
                  "large for defined data type\"). They are read-only inside instead (nothing reaches the host " +
                  "either way):" + list + "\nTo make them write-discarding like the rest of ~/.config, make them yours:\n  " +
                  (other_owner ? "sudo " : "") + "chown -R " + std::to_string(b.f.uid) + ":" + std::to_string(b.f.gid) + fix;
  if (b.f.ipc.config_unmapped_told || b.f.ipc.config_unmapped_marker.empty()) {
    // Said once per list (the marker in blaude's cache, hidden from the sandbox): --dry-run
    // shows the binds, the log the list.
    if (!b.f.ipc.config_unmapped_told) b.p.warnings.push_back(w);
    return;
  }
  b.p.warnings.push_back(w + "\n(said once for this list)");
  for (const std::string& d : {b.home(".cache"), b.f.ipc.cache_dir})
    b.p.preparations.push_back({HostPrep::Kind::MakeDir, d, 0700, "", false, "blaude's cache"});
  b.p.preparations.push_back({HostPrep::Kind::ReplaceFile, b.f.ipc.config_unmapped_marker, 0600,
                              config_unmapped_text(v, b.f.ipc.config_unmapped_more), false,
                              "the ~/.config ownership warning is shown once per list"});
}

void add_confinement(Builder& b) {
  Confinement& c = b.p.confine;
  c.uid = b.f.uid;
  c.gid = b.f.gid;
  c.fresh_keyring = true;
  c.forget_on_failure = b.f.ipc.own_overlay_cache;
  if (b.f.ipc.bwrap_setuid) {
    b.p.warnings.push_back(b.f.bwrap + " is setuid: blaude cannot scope its abstract unix sockets (" +
                           "the X server's, an abstract D-Bus) away from the host; --no-network does");
  } else if (b.f.ipc.landlock_abi >= 6) {
    c.landlock_scopes = kScopeAbstractUnixSocket | kScopeSignal;
  }  // else a network namespace of the sandbox's own closes them (app: net/netns.hpp), or the app warns
}

}  // namespace blaude::sandbox::bwrap::detail
