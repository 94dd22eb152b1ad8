#include "sandbox/bwrap/probe/probe_ipc.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <memory>

#include "common/dir_list.hpp"
#include "common/paths.hpp"
#include "common/shown.hpp"
#include "common/subprocess.hpp"
#include "common/file_io.hpp"
#include "common/log.hpp"
#include "common/unique_fd.hpp"
#include "sandbox/bwrap/probe/confine.hpp"
#include "sandbox/bwrap/probe/features.hpp"
#include "sandbox/bwrap/probe/overlay_cache.hpp"
#include "sandbox/bwrap/probe/gpg.hpp"
#include "sandbox/bwrap/probe/scan.hpp"

namespace blaude::sandbox::bwrap {

const std::vector<std::string> kConfigLoginDirs = {"autostart", "systemd", "environment.d", "plasma-workspace"};
const std::vector<std::string> kConfigAppDirs = {
    "nvim", "vim", "emacs", "doom", "fish", "bash", "zsh", "direnv", "Code/User", "Code - OSS/User",
    "VSCodium/User", "Cursor/User", "kitty", "alacritty", "wezterm", "foot", "tmux", "i3", "sway", "hypr",
    "openbox", "labwc", "lxsession", "xfce4/autostart", "fontconfig"};

bool is_tmp_ipc_name(const std::string& n) {
  return n == ".X11-unix" || n == ".ICE-unix" || n == ".XIM-unix" || n == ".font-unix" || n.rfind("tmux-", 0) == 0 ||
         n.rfind("ssh-", 0) == 0 || n.rfind("dbus-", 0) == 0;
}

// The entries of a held dir descriptor (/tmp: the seed names are picked from it), from ONE
// getdents64 call where it fits: the kernel lists a dir under its lock, which a rename in it takes too, so the listing is one
// state of /tmp. Name by name (lstat after readdir) a socket swapped between two names in
// flight showed as two symlinks, and nothing was shadowed (race_protect_socket.sh: 3 of 10).
std::vector<TmpEntry> list_tmp(int fd, size_t buf_size) {
  std::vector<TmpEntry> out;
  DirBuffer buf(buf_size);
  for_each_dir_entry(fd, buf, [&](const char* name, unsigned char type, unsigned long long ino) {
    out.push_back({name, ino, type});
  });
  return out;
}

// The user's own servers in /tmp, whatever their names: a socket owned by the user, at the top
// level or in dirs of the user's down to kUserSocketDepth levels (emacs's /tmp/emacsUID/server,
// nvim's /tmp/nvim.USER/XXXX/nvim.PID.0, zellij, i3, screen, VS Code's CLI socket). Such a
// server trusts its own user, and the sandbox runs as that user: emacsclient --eval, nvim
// --remote-send or zellij action run commands on the host. Other users' sockets (a database's)
// are theirs to guard, and the seed names are shadowed whole above. Not entered: symlinks, dirs of
// other users, the seed-named dirs, the workspace and $HOME (visible through their own binds, not
// only here). Bounded: max_dirs dirs listed at most, then a warning.
//
// Fair, so that one big dir of the user's cannot spend the bound for the others: each top-level
// dir of the user's is a group with its own queue, breadth-first inside it (a dir's subdirs after
// every dir of its level), and the groups take turns, one listing each. So every top-level dir is
// listed first, then one subdir of each, and so on: an agent's or an editor's socket dir (depth
// 1-2) is reached however many dirs a checkout, a cache or Claude Code's /tmp/claude-UID (its
// fswatch-probe-* dirs pile up: 214 on a machine that ran the suite for days) holds, and in
// whatever order /tmp lists them. Before, the bound was spent depth-first in /tmp's listing
// order: one such dir listed first left every socket after it unshadowed (stop 23's note).
// A subdir is opened when its turn comes, from its parent's descriptor with O_NOFOLLOW and
// checked to be the user's again: at most max_dirs descriptors, however many subdirs wait.
void scan_user_sockets_at(UserSockets& out, uid_t uid, const std::string& cwd, const std::string& home,
                          const std::string& home_real, int root_fd, const std::string& root,
                          const std::vector<TmpEntry>& top, int max_dirs) {
  struct Dir {
    std::shared_ptr<UniqueFd> parent;  // null: the root's descriptor
    std::string name, path;
    int depth;
  };
  std::vector<std::deque<Dir>> groups;
  auto visit = [&](int dfd, const std::shared_ptr<UniqueFd>& held, const std::string& dir,
                   const std::vector<TmpEntry>& entries, int depth, std::deque<Dir>* group) {
    for (const auto& e : entries) {
      if (depth == 1 && is_tmp_ipc_name(e.name)) continue;
      if (e.type != DT_SOCK && e.type != DT_DIR && e.type != DT_UNKNOWN) continue;
      const std::string path = dir + "/" + e.name;
      struct stat st;
      if (::fstatat(dfd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != uid) continue;
      if (S_ISSOCK(st.st_mode)) {
        out.sockets.push_back(path);
        out.ids[path] = Identity{(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(S_IFSOCK)};
      } else if (S_ISDIR(st.st_mode) && depth < kUserSocketDepth && path != cwd && path != home_real &&
                 path != home) {
        Dir d{held, e.name, path, depth + 1};
        if (group) {
          group->push_back(std::move(d));
        } else {
          groups.emplace_back();
          groups.back().push_back(std::move(d));
        }
      }
    }
  };
  visit(root_fd, nullptr, root, top, 1, nullptr);
  int listed = 0;
  for (bool any = true; any;) {
    any = false;
    for (auto& g : groups) {
      if (g.empty()) continue;
      any = true;
      Dir d = std::move(g.front());
      g.pop_front();
      if (++listed > max_dirs) {
        out.warnings.push_back("the scan for your own sockets in /tmp stopped after " + std::to_string(max_dirs) +
                                   " dirs: sockets below " + d.path + " and the rest may be reachable (--clear-tmp closes them)");
        return;
      }
      auto fd = std::make_shared<UniqueFd>(
          ::openat(d.parent ? d.parent->get() : root_fd, d.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      // Gone, or replaced by another user's dir since it was seen: not the user's to scan.
      struct stat ds;
      if (!*fd || ::fstat(fd->get(), &ds) != 0 || ds.st_uid != uid) continue;
      const std::vector<TmpEntry> entries = list_tmp(fd->get(), 32 * 1024);
      // A dir of the user's that holds sockets and nothing else (tmux's, Claude Code's cc-socks,
      // an emacs server dir) is a socket dir: the planner shadows it whole with one tmpfs, which
      // is one mount however many sockets (stale ones pile up there) and also covers sockets made
      // in it after the start. Its sockets are still listed (the opt-ins and the fallback use them).
      const bool only_sockets = !entries.empty() && std::all_of(entries.begin(), entries.end(), [](const TmpEntry& e) {
        return e.type == DT_SOCK;
      });
      if (only_sockets) {
        out.dirs.push_back(d.path);
        out.ids[d.path] = Identity{(unsigned long long)ds.st_dev, (unsigned long long)ds.st_ino, unsigned(S_IFDIR)};
      }
      visit(fd->get(), fd, d.path, entries, d.depth, &g);
    }
  }
}

// The seed-named entries of one listing of /tmp (scan_tmp). `last`: the last listing scan_tmp
// makes, where a name that shows another object than the one listed is taken with the object it
// shows now when that is a kind the shadows hide (socket, dir, FIFO, device), instead of making
// the listing stale.
void scan_tmp_names(HostFacts& f, int tmp_fd, const struct stat& ts, const std::vector<TmpEntry>& all, bool last) {
  for (const auto& e : all) {
    if (!is_tmp_ipc_name(e.name)) continue;
    const std::string path = "/tmp/" + e.name;
    struct stat st;
    if (::fstatat(tmp_fd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone since the listing
    // Another object than the one listed: renamed in flight (a mount point on the name shows
    // another device, and is no flip).
    // In the last listing it is taken as it is now, if that is something the shadows hide; a
    // symlink or a regular file there now (no shadow) still makes it a change: a socket
    // exchanged with a symlink at each stat would otherwise be at no name the probe shadows.
    if (st.st_dev == ts.st_dev && (unsigned long long)st.st_ino != e.ino &&
        (!last || S_ISLNK(st.st_mode) || S_ISREG(st.st_mode))) {
      f.tmp_changed.push_back(path);
      continue;
    }
    // A symlink cannot carry a mount (one would land on whatever it names): reported.
    if (S_ISLNK(st.st_mode)) {
      f.tmp_socket_links.push_back(path);
      continue;
    }
    // A regular file is no IPC endpoint (connect() on it is refused; test logs like
    // tmux-client-N.log): no shadow. Only what could be one is: sockets, FIFOs, devices, dirs
    // (which can hold sockets). The type is the listed inode's (checked above), and an inode's
    // type never changes: a socket put at this name later is a new object at the name, like a
    // socket created after start under a new name (reachable either way: a host rename over a
    // shadowed name detaches the sandbox's shadow). launch_plan.hpp's if_gone is the helper's side.
    if (S_ISREG(st.st_mode)) continue;
    (S_ISDIR(st.st_mode) ? f.tmp_socket_dirs : f.tmp_socket_files).push_back(path);
    f.tmp_ids[path] = Identity{(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(st.st_mode & S_IFMT)};
  }
}

namespace {

void scan_tmp(HostFacts& f) {
  UniqueFd tmp(::open("/tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat ts;
  if (!tmp || ::fstat(tmp.get(), &ts) != 0) return;
  // One listing is one state of /tmp (list_tmp); each seed name's object is then checked against
  // it. A name that shows another object than the one listed (renamed, or removed and made again,
  // in flight) makes the listing stale: /tmp is listed again, up to kTmpListings times, for one
  // listing every name agrees with. A name gone since the listing (removed, or renamed to a name
  // this listing does not have, which is a new name, reachable like a socket made after start)
  // is passed over: a test suite or a session bus removing its /tmp socket is no reason to refuse
  // (it did, in 2 of 3 starts beside a process making and removing /tmp/dbus-* sockets).
  // A name that still changes in the last listing is taken with the object it shows at its stat
  // when that object is one the shadows hide (a socket, a dir, ...): what is at the name is what
  // the shadow must hide. The helper then mounts on that object or, removed and made again once
  // more, on the one at the name by then (if_gone); the fallback's held bind checks it is at the
  // name. Refusing there stopped 1 start in 30 beside a process making and removing /tmp/dbus-*
  // and ssh-* entries every few ms (CI, stop 23): every start must start beside such churn.
  // A name that shows a symlink or a regular file instead (no shadow over either) still refuses:
  // a socket exchanged with a symlink between the stats of two names (RENAME_EXCHANGE) shows a
  // symlink at each, and was then at no shadowed name (test_protect_socket_race: 1 of 15 reached
  // the socket with that rule relaxed too, in a CI run of this change's first form).
  constexpr int kTmpListings = 4;
  std::vector<TmpEntry> all;
  for (int listing = 1;; ++listing) {
    // From the start of the dir again (the descriptor's offset is where the last listing ended).
    if (listing > 1 && ::lseek(tmp.get(), 0, SEEK_SET) != 0) {
      f.tmp_changed.push_back("/tmp");
      break;
    }
    all = list_tmp(tmp.get());
    f.tmp_socket_dirs.clear();
    f.tmp_socket_files.clear();
    f.tmp_socket_links.clear();
    f.tmp_changed.clear();
    f.tmp_ids.clear();
    scan_tmp_names(f, tmp.get(), ts, all, listing == kTmpListings);
    if (f.tmp_changed.empty() || listing == kTmpListings) break;
  }
  // With the workspace scan on its thread (HostFacts::probe), later: wait_for_scan() adds them.
  if (!f.tmp_user_sockets_pending) {
    UserSockets us;
    scan_user_sockets_at(us, f.uid, f.cwd, f.home, f.home_real, tmp.get(), "/tmp", all);
    merge_user_sockets(f, std::move(us));
  }
  for (auto* v : {&f.tmp_socket_dirs, &f.tmp_socket_files, &f.tmp_socket_links, &f.tmp_changed})
    std::sort(v->begin(), v->end());
}

// A positive answer of this boot from ~/.cache/blaude, else the forked probe; a positive probe
// is written back by the prepare step (never by the probe: --dry-run changes nothing).
bool own_overlay_cached_or_probed(HostFacts& f) {
  const std::string key = own_overlay_key_now(f.bwrap, f.uid);
  const std::string file = own_overlay_cache_file(f.home, f.uid);
  const std::string dir = dirname_of(file);
  if (!key.empty() && !file.empty() && cache_dir_ok(dir, f.uid) &&
      own_overlay_cached(read_small_file(file, 1024, Follow::No).value_or(""), key)) {
    f.ipc.own_overlay_cached = true;
    f.ipc.own_overlay_cache = file;
    return true;
  }
  if (!own_overlay_works(&f.ipc.own_overlay_why)) return false;
  if (!key.empty() && !file.empty()) {
    f.ipc.own_overlay_cache = file;
    for (const std::string& d : {f.home + "/.cache", dir})
      f.cache_writes.push_back(HostPrep{HostPrep::Kind::MakeDir, d, 0700, "", false, "own-overlay cache"});
    f.cache_writes.push_back(HostPrep{HostPrep::Kind::ReplaceFile, file, 0600, own_overlay_entry(key), false,
                                      "own-overlay cache (blaude can make its own overlays, this boot)"});
  }
  return true;
}

void probe_gpg(HostFacts& f) {
  std::vector<std::string> env;
  for (const char* k : {"HOME", "GNUPGHOME", "PATH", "XDG_RUNTIME_DIR"})
    if (!f.env_or(k).empty()) env.push_back(std::string(k) + "=" + f.env_or(k));
  RunOptions o;
  o.timeout_ms = 2000;
  o.env = env;
  RunResult r = run_capture({"gpgconf", "--list-dirs"}, o);
  if (r.status != 0) {
    f.ipc.gpg_problem = r.timed_out ? "gpgconf --list-dirs timed out" : "gpgconf --list-dirs failed (is gnupg installed?)";
    return;
  }
  f.ipc.gpg_dirs = parse_gpgconf_dirs(r.output);
  const GpgBinds b = gpg_binds(f.ipc.gpg_dirs);
  for (const auto& p : {b.agent_source, b.agent_dest, b.socket_dir, b.homedir})
    if (!p.empty()) f.paths.emplace(p, probe_path(p));
  for (const auto& p : b.public_files) f.paths.emplace(p, probe_path(p));
}

}  // namespace

std::vector<OwnDir> own_dirs(const HostFacts& f) {
  std::vector<OwnDir> v;
  if (!f.ipc.config_dir.empty())
    v.push_back({f.ipc.config_dir, "blaude's own config (a planted user policy would apply without a prompt)"});
  if (!f.ipc.cache_dir.empty())
    v.push_back({f.ipc.cache_dir, "blaude's own cache (a planted \"no overlays\" answer would weaken the next session)"});
  if (!f.ipc.state_dir.empty())
    v.push_back({f.ipc.state_dir, "blaude's own log dir (a planted link would redirect the log's appends)"});
  return v;
}

std::string own_dir_host(const HostFacts& f, const std::string& dir) {
  if (dir.empty()) return {};
  const PathFact& c = f.at(dir);
  if (c.lkind != Kind::Missing) return c.real;
  const PathFact& parent = f.at(dirname_of(dir));
  return parent.kind == Kind::Dir && !parent.real.empty() ? parent.real + "/" + basename_of(dir) : std::string();
}

std::string dot_config_host(const HostFacts& f) {
  const PathFact& c = f.at(f.home + "/.config");
  return c.kind == Kind::Dir ? c.real : std::string();
}

void identify_ipc_guards(HostFacts& f) {
  for (const auto& d : own_dirs(f)) {
    const std::string c = own_dir_host(f, d.path);
    if (c.empty()) continue;
    identify(f.ws.ids, c);
    // Missing cache and log dirs are made by the prepare step (plan/plan_ipc.cpp): only their type is
    // known, and the helper checks that (no symlink on the way, a dir).
    if (d.path != f.ipc.config_dir && f.at(d.path).lkind == Kind::Missing) f.ws.ids[c] = Identity{0, 0, S_IFDIR};
  }
  if (f.overlay || f.ipc.own_overlay) return;
  if (std::string cfg = dot_config_host(f); !cfg.empty())
    for (const auto* list : {&kConfigLoginDirs, &kConfigAppDirs})
      for (const auto& r : *list) identify(f.ws.ids, cfg + "/" + r);
}

void scan_config_unmapped(IpcFacts& ipc, const std::string& root, uid_t uid, gid_t gid, size_t max_entries,
                          size_t max_kept) {
  ipc.config_unmapped.clear();
  ipc.config_unmapped_more = 0;
  ipc.config_unmapped_truncated = false;
  std::deque<std::string> queue{std::string()};
  DirBuffer buf(64 * 1024);
  size_t seen = 0;
  while (!queue.empty()) {
    const std::string rel = std::move(queue.front());
    queue.pop_front();
    UniqueFd fd(::open((rel.empty() ? root : root + "/" + rel).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) continue;  // unreadable or gone: nothing below it can be listed
    std::vector<std::string> names;
    for_each_dir_entry(fd.get(), buf, [&](const char* n, unsigned char) { names.emplace_back(n); });
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      if (seen++ >= max_entries) {
        ipc.config_unmapped_truncated = true;
        return;
      }
      if (rel.empty() && (n == "git" || n == "blaude")) continue;
      struct stat st;
      if (::fstatat(fd.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      const bool dir = S_ISDIR(st.st_mode);
      if (!dir && !S_ISREG(st.st_mode)) continue;  // links are bound through; sockets, fifos: no data to write
      std::string r = rel.empty() ? n : rel + "/" + n;
      // Another user's file that only its owner may write (sudo's root:root 0644): a write is
      // refused before any copy-up (EACCES, as on the host), and removing it copies nothing up
      // (a whiteout in its parent): a read-only bind would only make `rm` fail (EBUSY).
      if (!dir && st.st_uid != uid && !(st.st_mode & (S_IWGRP | S_IWOTH))) continue;
      if (st.st_uid != uid || st.st_gid != gid) {
        if (ipc.config_unmapped.size() < max_kept)
          ipc.config_unmapped.push_back({std::move(r), st.st_uid, st.st_gid, dir});
        else
          ++ipc.config_unmapped_more;
      } else if (dir) {
        queue.push_back(std::move(r));
      }
    }
  }
}

std::string config_unmapped_text(const std::vector<ConfigUnmapped>& v, size_t more) {
  std::string t;
  for (const auto& e : v)
    t += shown(e.rel) + " " + std::to_string(e.uid) + ":" + std::to_string(e.gid) + (e.dir ? " dir" : "") + "\n";
  if (more) t += "+" + std::to_string(more) + "\n";
  return t;
}

namespace {
// Where ~/.config is an overlay: its entries that overlay cannot copy up, as PathFacts (so that
// the mount checks hold their read-only binds to what was seen), and whether the user was told.
void probe_config_unmapped(HostFacts& f) {
  const std::string host = dot_config_host(f);
  if (host.empty()) return;
  scan_config_unmapped(f.ipc, host, f.uid, f.gid);
  if (f.ipc.config_unmapped_truncated)
    spdlog::info("~/.config: the scan for entries of another owner or group stopped after {} entries", kConfigScanEntries);
  for (const auto& e : f.ipc.config_unmapped) {
    const std::string p = host + "/" + e.rel;
    PathFact pf;
    pf.lkind = pf.kind = e.dir ? Kind::Dir : Kind::File;
    pf.real = p;
    f.paths.emplace(p, pf);
  }
  if (f.ipc.config_unmapped.empty()) return;
  spdlog::info("~/.config: {} entries overlayfs cannot copy up here (owner or group not {}:{}), read-only inside:\n{}",
               f.ipc.config_unmapped.size() + f.ipc.config_unmapped_more, f.uid, f.gid,
               config_unmapped_text(f.ipc.config_unmapped, f.ipc.config_unmapped_more));
  if (f.ipc.cache_dir.empty()) return;
  f.ipc.config_unmapped_marker = f.ipc.cache_dir + "/config-unmapped-" + std::to_string(f.uid);
  f.ipc.config_unmapped_told = read_small_file(f.ipc.config_unmapped_marker, 64 * 1024, Follow::No).value_or("") ==
                               config_unmapped_text(f.ipc.config_unmapped, f.ipc.config_unmapped_more);
}
}  // namespace

void probe_ipc(HostFacts& f, const SandboxRequest& req) {
  f.ipc.landlock_abi = landlock_abi();
  // BLAUDE_LANDLOCK_SCOPE=off: as on a kernel before 6.12 (Landlock without scopes), to test
  // that path on a newer one.
  if (f.env_or("BLAUDE_LANDLOCK_SCOPE") == "off") f.ipc.landlock_abi = std::min(f.ipc.landlock_abi, 5);
  struct stat st;
  f.ipc.bwrap_setuid = !f.bwrap.empty() && ::stat(f.bwrap.c_str(), &st) == 0 && (st.st_mode & S_ISUID);
  // Only where bwrap has no overlays, and not for setuid bwrap (it would run unprivileged in
  // blaude's namespace).
  // BLAUDE_OWN_OVERLAY=off: as where unprivileged overlayfs is refused (the pins' test).
  if (!f.bwrap.empty() && !f.overlay && !f.ipc.bwrap_setuid && !req.allow_protected_writes) {
    if (f.env_or("BLAUDE_OWN_OVERLAY") == "off")
      f.ipc.own_overlay_why = "BLAUDE_OWN_OVERLAY=off";
    else
      f.ipc.own_overlay = own_overlay_cached_or_probed(f);
  }
  std::string tt = f.env_or("TMUX_TMPDIR");
  tt = tt.empty() || tt[0] != '/' ? "/tmp" : normalize(tt);
  f.ipc.tmux_dir = tt + "/tmux-" + std::to_string(f.uid);
  f.paths.emplace(f.ipc.tmux_dir, probe_path(f.ipc.tmux_dir));
  f.paths.emplace(tt, probe_path(tt));
  std::string xdg = f.env_or("XDG_CONFIG_HOME");
  f.ipc.config_dir = (xdg.empty() || xdg[0] != '/' ? f.home + "/.config" : normalize(xdg)) + "/blaude";
  f.ipc.cache_dir = own_cache_dir(f.home);
  f.ipc.state_dir = f.home.empty() ? std::string() : log::state_dir(f.env_or("XDG_STATE_HOME"), f.home);
  for (const auto& d : own_dirs(f))
    for (const std::string& p : {d.path, dirname_of(d.path)}) f.paths.emplace(p, probe_path(p));
  if (!f.overlay && !f.ipc.own_overlay)
    for (const auto* list : {&kConfigLoginDirs, &kConfigAppDirs})
      for (const auto& r : *list) f.paths.emplace(f.home + "/.config/" + r, probe_path(f.home + "/.config/" + r));
  f.paths.emplace(f.home + "/.config", probe_path(f.home + "/.config"));
  // BLAUDE_CONFIG_UNMAPPED=off: the overlay alone, as before (the test's control).
  if ((f.overlay || f.ipc.own_overlay) && !req.allow_protected_writes && f.env_or("BLAUDE_CONFIG_UNMAPPED") != "off")
    probe_config_unmapped(f);
  scan_tmp(f);
  if (req.git) probe_gpg(f);
}

UserSockets scan_user_sockets(uid_t uid, const std::string& cwd, const std::string& home, const std::string& home_real) {
  UserSockets us;
  UniqueFd tmp(::open("/tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!tmp) return us;
  scan_user_sockets_at(us, uid, cwd, home, home_real, tmp.get(), "/tmp", list_tmp(tmp.get()));
  return us;
}

void merge_user_sockets(HostFacts& f, UserSockets us) {
  f.tmp_user_sockets = std::move(us.sockets);
  f.tmp_user_socket_dirs = std::move(us.dirs);
  std::sort(f.tmp_user_sockets.begin(), f.tmp_user_sockets.end());
  std::sort(f.tmp_user_socket_dirs.begin(), f.tmp_user_socket_dirs.end());
  for (auto& [path, id] : us.ids) f.tmp_ids.emplace(path, id);
  f.probe_warnings.insert(f.probe_warnings.end(), us.warnings.begin(), us.warnings.end());
  f.tmp_user_sockets_pending = false;
}

}  // namespace blaude::sandbox::bwrap
