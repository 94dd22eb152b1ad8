#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
// The planner's host-IPC and own-config parts over a fake host: blaude's config dir and the
// ~/.config fallback pins are guards of the protect layout (mounted at every alias that shows
// them, by identity), also under --allow-protected-writes for the config dir.
#include <string>

#include "catch.hpp"
#include "fake_host.hpp"
#include "temp_dir.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/probe/probe_ipc.hpp"
#include "sandbox/bwrap/probe/scan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;

namespace {

const std::string kCfg = "/home/u/.config";

// bwrap 0.8 and no overlay of blaude's own either: ~/.config is a plain writable bind.
HostFacts old_bwrap_host(Kind blaude_dir) {
  HostFacts f = typical_host();
  f.overlay = false;
  f.ipc.own_overlay = false;
  f.inner_mounts = true;
  put(f, kCfg, Kind::Dir);
  put(f, kCfg + "/nvim", Kind::Dir);
  put(f, kCfg + "/autostart", Kind::Missing);
  f.ipc.config_dir = kCfg + "/blaude";
  put(f, f.ipc.config_dir, blaude_dir);
  // The probe's identities (lstat would give the type; fake ones here, fixed per path).
  for (const std::string& p : {kCfg + "/blaude", kCfg + "/nvim", kCfg + "/autostart", std::string("/home/u/proj")})
    identify(f.ws.ids, p);
  for (auto& [p, id] : f.ws.ids) id = Identity{1, std::hash<std::string>{}(p), 0040000};
  return f;
}

}  // namespace

TEST_CASE("blaude's config dir and the login/app dirs of a host-writable ~/.config are guards", "[sandbox][escapes]") {
  const auto p = plan_of(old_bwrap_host(Kind::Dir));
  REQUIRE(mount_at(p, kCfg + "/blaude"));
  CHECK(mount_at(p, kCfg + "/blaude")->kind == InnerKind::ReadOnly);
  REQUIRE(mount_at(p, kCfg + "/nvim"));
  CHECK(mount_at(p, kCfg + "/nvim")->kind == InnerKind::ReadOnly);
  REQUIRE(mount_at(p, kCfg + "/autostart"));  // missing: made empty and kept empty
  CHECK(mount_at(p, kCfg + "/autostart")->kind == InnerKind::EmptyDir);
  CHECK(has(p.argv, {"--file", "@fd:protect-gate", "/run/blaude/gate"}));
  // Not a second path of bwrap options beside the layout.
  CHECK_FALSE(has(p.argv, {"--ro-bind", kCfg + "/blaude", kCfg + "/blaude"}));
}

TEST_CASE("a missing config dir is an empty read-only dir, made by the helper, no host prep", "[sandbox][escapes]") {
  const auto p = plan_of(old_bwrap_host(Kind::Missing));
  REQUIRE(mount_at(p, kCfg + "/blaude"));
  CHECK(mount_at(p, kCfg + "/blaude")->kind == InnerKind::EmptyDir);
  for (const auto& h : p.preparations) CHECK(h.path != kCfg + "/blaude");
}

TEST_CASE("blaude's config dir stays read-only with --allow-protected-writes; the app pins do not", "[sandbox][escapes]") {
  SandboxRequest r;
  r.allow_protected_writes = true;
  const auto p = plan_of(old_bwrap_host(Kind::Dir), r);
  REQUIRE(mount_at(p, kCfg + "/blaude"));
  CHECK(mount_at(p, kCfg + "/blaude")->kind == InnerKind::ReadOnly);
  CHECK_FALSE(mount_at(p, kCfg + "/nvim"));
  // No workspace pins either: the protections are off.
  // (The workspace's own bind is the helper's too: a bind, not a pin.)
  for (const auto& m : p.inner_mounts)
    if (m.kind != InnerKind::Bind) CHECK(m.path.rfind("/workspaces", 0) != 0);
}

TEST_CASE("where the helper cannot run the same guards are bwrap options", "[sandbox][escapes]") {
  auto f = old_bwrap_host(Kind::Dir);
  f.inner_mounts = false;
  const auto p = plan_of(f);
  CHECK(p.inner_mounts.empty());
  CHECK(has(p.argv, {"--ro-bind", kCfg + "/blaude", kCfg + "/blaude"}));
  // A missing dir: created by the launcher and bound by held descriptor (plan_held.cpp).
  CHECK(has(p.argv, {"--ro-bind", kCfg + "/autostart", kCfg + "/autostart"}));
  CHECK(std::any_of(p.held.begin(), p.held.end(), [&](const auto& h) { return h.make_dir && h.host == kCfg + "/autostart"; }));
}

TEST_CASE("with overlays nothing of ~/.config is guarded: writes are discarded", "[sandbox][escapes]") {
  auto f = old_bwrap_host(Kind::Dir);
  f.overlay = true;
  const auto p = plan_of(f);
  CHECK_FALSE(mount_at(p, kCfg + "/blaude"));
  CHECK_FALSE(mount_at(p, kCfg + "/nvim"));
  CHECK(has(p.argv, {"--overlay-src", kCfg, "--tmp-overlay", kCfg}));
}

TEST_CASE("blaude's cache and log dirs are guards at a -m DIR:rw that shows them, in every mode", "[sandbox][escapes]") {
  auto f = old_bwrap_host(Kind::Dir);
  f.overlay = true;  // ~/.config is no alias here: only the -m mount shows the dirs
  const std::string cache = "/home/u/.cache", state = "/home/u/.local/state";
  put(f, cache, Kind::Dir);
  put(f, cache + "/blaude", Kind::Dir);
  put(f, state, Kind::Dir);
  put(f, state + "/blaude", Kind::Missing);
  f.ipc.cache_dir = cache + "/blaude";
  f.ipc.state_dir = state + "/blaude";
  for (const std::string& p : {cache + "/blaude", state + "/blaude"}) identify(f.ws.ids, p);
  for (auto& [p, id] : f.ws.ids) id = Identity{1, std::hash<std::string>{}(p), 0040000};
  f.ws.ids[state + "/blaude"] = Identity{0, 0, 0040000};  // missing: made by a preparation (type only)
  SandboxRequest r;
  for (const auto& d : {cache, state}) {
    r.mounts.push_back({d, true});
    f.mount_paths.push_back(d);
    f.mounts.push_back(f.at(d));
  }
  for (bool off : {false, true}) {
    r.allow_protected_writes = off;
    const auto p = plan_of(f, r);
    REQUIRE(mount_at(p, cache + "/blaude"));
    CHECK(mount_at(p, cache + "/blaude")->kind == InnerKind::ReadOnly);
    // Missing: blaude makes it (its log goes there before the sandbox starts), then read-only.
    REQUIRE(mount_at(p, state + "/blaude"));
    CHECK(mount_at(p, state + "/blaude")->kind == InnerKind::ReadOnly);
    CHECK(std::any_of(p.preparations.begin(), p.preparations.end(), [&](const HostPrep& h) {
      return h.kind == HostPrep::Kind::MakeDir && h.path == state + "/blaude" && h.required;
    }));
  }
  // Control: with no alias showing them (the tmpfs $HOME), no mount at all.
  const auto p = plan_of(f);
  CHECK_FALSE(mount_at(p, cache + "/blaude"));
  CHECK_FALSE(mount_at(p, state + "/blaude"));
}

TEST_CASE("the user's own sockets in /tmp get /dev/null by the helper, passed over if gone; opt-ins stay", "[sandbox][escapes]") {
  auto f = old_bwrap_host(Kind::Dir);
  f.overlay = true;
  const std::string emacs = "/tmp/emacs1000/server", agent = "/tmp/agent.x/a.sock";
  f.tmp_user_sockets = {agent, emacs};
  f.tmp_ids[emacs] = Identity{1, 11, 0140000};
  f.tmp_ids[agent] = Identity{1, 12, 0140000};
  f.env["SSH_AUTH_SOCK"] = agent;
  put(f, agent, Kind::Socket);
  auto shadow_of = [](const LaunchPlan& p, const std::string& path) { return mount_at(p, path); };
  SandboxRequest r;
  auto p = plan_of(f, r);
  REQUIRE(shadow_of(p, emacs));
  CHECK(shadow_of(p, emacs)->kind == InnerKind::ShadowFile);
  CHECK(shadow_of(p, emacs)->if_same);
  CHECK(shadow_of(p, emacs)->id.ino == 11);
  CHECK(shadow_of(p, agent));  // without --ssh the agent is one more socket of the user
  r.ssh = true;
  p = plan_of(f, r);
  CHECK(shadow_of(p, emacs));
  CHECK_FALSE(shadow_of(p, agent));  // --ssh hands it in on purpose
  // No helper: not as bwrap options (a socket gone since the probe would stop the start); said.
  f.inner_mounts = false;
  p = plan_of(f, {});
  CHECK_FALSE(has(p.argv, {"--ro-bind", "/dev/null", emacs}));
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("socket(s) of yours in /tmp") != std::string::npos; }));
}

TEST_CASE("a dir of the user's with sockets only in /tmp is one tmpfs, unless an opt-in is in it", "[sandbox][escapes]") {
  auto f = old_bwrap_host(Kind::Dir);
  f.overlay = true;
  const std::string dir = "/tmp/cc-socks", a = dir + "/1.sock", b = dir + "/2.sock", lone = "/tmp/emacs1000/server";
  f.tmp_user_sockets = {a, b, lone};
  f.tmp_user_socket_dirs = {dir};
  f.tmp_ids[dir] = Identity{1, 10, 0040000};
  f.tmp_ids[a] = Identity{1, 11, 0140000};
  f.tmp_ids[b] = Identity{1, 12, 0140000};
  f.tmp_ids[lone] = Identity{1, 13, 0140000};
  put(f, a, Kind::Socket);
  auto p = plan_of(f, {});
  REQUIRE(mount_at(p, dir));
  CHECK(mount_at(p, dir)->kind == InnerKind::ShadowDir);
  CHECK(mount_at(p, dir)->if_same);
  CHECK(mount_at(p, dir)->id.ino == 10);
  CHECK_FALSE(mount_at(p, a));  // covered by the dir's tmpfs: no mount per socket
  CHECK_FALSE(mount_at(p, b));
  CHECK(mount_at(p, lone));  // control: a socket outside it keeps its own shadow
  // --ssh's agent inside: the dir stays, its other sockets are shadowed one by one.
  f.env["SSH_AUTH_SOCK"] = a;
  SandboxRequest r;
  r.ssh = true;
  p = plan_of(f, r);
  CHECK_FALSE(mount_at(p, dir));
  CHECK_FALSE(mount_at(p, a));
  REQUIRE(mount_at(p, b));
  CHECK(mount_at(p, b)->kind == InnerKind::ShadowFile);
  // No helper: nothing by path (a dir gone since the probe would stop the start); said.
  f.inner_mounts = false;
  p = plan_of(f, {});
  CHECK_FALSE(has(p.argv, {"--tmpfs", dir}));
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("socket(s) of yours in /tmp") != std::string::npos; }));
}

// A seed-named /tmp entry removed and made again between the listing and its stat (a test
// suite's or a session bus's churn): the listing is stale, and in the last listing the name is
// taken with the object it shows then if that is a socket, a dir, ... (CI, stop 23: 1 start in 30
// refused); a symlink or a regular file there still refuses.
// Over a private dir standing in for /tmp: only the names are "/tmp/..." strings.
TEST_CASE("a seed name that changes in every listing is taken with the object it shows if shadowed, not refused", "[sandbox][escapes]") {
  char tmpl[] = "/tmp/blaude-unit-names-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  const std::string dir = tmpl;
  const std::string sock = dir + "/dbus-churn", sub = dir + "/ssh-churn";
  REQUIRE(::mknod(sock.c_str(), S_IFSOCK | 0600, 0) == 0);
  REQUIRE(::mkdir(sub.c_str(), 0700) == 0);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  struct stat ts, ss, ds;
  REQUIRE(::fstat(fd, &ts) == 0);
  REQUIRE(::stat(sock.c_str(), &ss) == 0);
  REQUIRE(::stat(sub.c_str(), &ds) == 0);
  // As listed before they were made again: other inode numbers than the objects at the names.
  const std::vector<TmpEntry> listed = {{"dbus-churn", (unsigned long long)ss.st_ino + 1000, DT_SOCK},
                                        {"ssh-churn", (unsigned long long)ds.st_ino + 1000, DT_DIR},
                                        {"dbus-gone", 12345, DT_SOCK},
                                        {"not-a-seed-name", 1, DT_SOCK}};
  HostFacts stale;
  scan_tmp_names(stale, fd, ts, listed, false);
  CHECK(stale.tmp_changed == std::vector<std::string>{"/tmp/dbus-churn", "/tmp/ssh-churn"});
  CHECK(stale.tmp_socket_files.empty());
  CHECK(stale.tmp_socket_dirs.empty());

  HostFacts last;
  scan_tmp_names(last, fd, ts, listed, true);
  CHECK(last.tmp_changed.empty());
  CHECK(last.tmp_socket_files == std::vector<std::string>{"/tmp/dbus-churn"});
  CHECK(last.tmp_socket_dirs == std::vector<std::string>{"/tmp/ssh-churn"});
  // The objects at the names now, which the shadows must hide.
  CHECK(last.tmp_ids.at("/tmp/dbus-churn") == Identity{(unsigned long long)ss.st_dev, (unsigned long long)ss.st_ino, S_IFSOCK});
  CHECK(last.tmp_ids.at("/tmp/ssh-churn") == Identity{(unsigned long long)ds.st_dev, (unsigned long long)ds.st_ino, S_IFDIR});
  // What no shadow hides at a changed name (a symlink, a regular file) is a flip in flight, also
  // in the last listing: a socket exchanged with a symlink between the stats of two names shows
  // a symlink at each, and would be at no shadowed name. The launch refuses.
  const std::string link = dir + "/dbus-flip", file = dir + "/dbus-file";
  REQUIRE(::symlink("/nowhere", link.c_str()) == 0);
  REQUIRE(::mknod(file.c_str(), S_IFREG | 0600, 0) == 0);
  struct stat ls, fs;
  REQUIRE(::lstat(link.c_str(), &ls) == 0);
  REQUIRE(::lstat(file.c_str(), &fs) == 0);
  const std::vector<TmpEntry> flipped = {{"dbus-flip", (unsigned long long)ls.st_ino + 1000, DT_SOCK},
                                         {"dbus-file", (unsigned long long)fs.st_ino + 1000, DT_SOCK}};
  HostFacts flip;
  scan_tmp_names(flip, fd, ts, flipped, true);
  CHECK(flip.tmp_changed == std::vector<std::string>{"/tmp/dbus-flip", "/tmp/dbus-file"});
  CHECK(flip.tmp_socket_links.empty());
  // Control: listed as they are, the symlink is reported and the file needs no shadow.
  HostFacts steady;
  scan_tmp_names(steady, fd, ts, {{"dbus-flip", (unsigned long long)ls.st_ino, DT_LNK},
                                  {"dbus-file", (unsigned long long)fs.st_ino, DT_REG}}, true);
  CHECK(steady.tmp_changed.empty());
  CHECK(steady.tmp_socket_links == std::vector<std::string>{"/tmp/dbus-flip"});
  ::unlink(link.c_str());
  ::unlink(file.c_str());
  // Planned: shadowed, and the launch goes on.
  auto f = old_bwrap_host(Kind::Dir);
  f.tmp_socket_files = last.tmp_socket_files;
  f.tmp_socket_dirs = last.tmp_socket_dirs;
  f.tmp_ids = last.tmp_ids;
  const auto p = plan_of(f);
  REQUIRE(mount_at(p, "/tmp/dbus-churn"));
  CHECK(mount_at(p, "/tmp/dbus-churn")->id.ino == (unsigned long long)ss.st_ino);
  REQUIRE(mount_at(p, "/tmp/ssh-churn"));
  CHECK(mount_at(p, "/tmp/ssh-churn")->id.ino == (unsigned long long)ds.st_ino);
  ::close(fd);
  ::unlink(sock.c_str());
  ::rmdir(sub.c_str());
  ::rmdir(dir.c_str());
}

// The scan for the user's own sockets spends its bound fairly: one big dir of the user's (a
// checkout, Claude Code's /tmp/claude-UID with its fswatch-probe-* dirs) listed first cannot
// leave an agent's or an editor's socket after it unscanned. Over a private dir standing in for
// /tmp, in both listing orders (depth-first in listing order, the agent was missed in one).
TEST_CASE("the user-socket scan's bound is shared by the top-level dirs: a big one cannot spend it", "[sandbox][escapes]") {
  char tmpl[] = "/tmp/blaude-unit-sockscan-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  const std::string r = tmpl;
  auto mk = [](const std::string& p) { REQUIRE(::mkdir(p.c_str(), 0700) == 0); };
  auto sock = [](const std::string& p) { REQUIRE(::mknod(p.c_str(), S_IFSOCK | 0600, 0) == 0); };
  mk(r + "/litter");
  for (int i = 0; i < kUserSocketDirs + 40; ++i) mk(r + "/litter/probe-" + std::to_string(i));
  mk(r + "/agent");
  sock(r + "/agent/agent.sock");
  mk(r + "/nvim");
  mk(r + "/nvim/x");
  sock(r + "/nvim/x/nvim.1.0");
  mk(r + "/deep");
  mk(r + "/deep/a");
  mk(r + "/deep/a/b");
  sock(r + "/deep/a/b/far.sock");  // 4 levels: beyond the scan
  const int fd = ::open(r.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::vector<TmpEntry> top = list_tmp(fd);
  auto rank = [](const TmpEntry& e) { return e.name == "litter" ? 0 : e.name == "deep" ? 1 : 2; };
  for (bool litter_first : {true, false}) {
    std::stable_sort(top.begin(), top.end(), [&](const TmpEntry& a, const TmpEntry& b) {
      return litter_first ? rank(a) < rank(b) : rank(a) > rank(b);
    });
    for (bool litter_last_visited : {false, true}) {
      std::vector<TmpEntry> order = top;
      if (litter_last_visited) std::reverse(order.begin(), order.end());
      INFO("order: " << order.front().name << " first");
      UserSockets us;
      scan_user_sockets_at(us, ::getuid(), "/nowhere", "/nowhere", "/nowhere", fd, r, order);
      auto found = [&](const std::string& p) { return std::find(us.sockets.begin(), us.sockets.end(), p) != us.sockets.end(); };
      CHECK(found(r + "/agent/agent.sock"));
      CHECK(found(r + "/nvim/x/nvim.1.0"));
      CHECK_FALSE(found(r + "/deep/a/b/far.sock"));
      // The bound was reached (the litter alone is over it), and it is said.
      REQUIRE(us.warnings.size() == 1);
      CHECK(us.warnings[0].find("stopped after " + std::to_string(kUserSocketDirs) + " dirs") != std::string::npos);
      CHECK(us.warnings[0].find(r + "/litter/") != std::string::npos);
    }
  }
  // Under the bound nothing is said, and a dir of sockets only is one.
  UserSockets small;
  std::vector<TmpEntry> no_litter;
  for (const auto& e : top)
    if (e.name != "litter") no_litter.push_back(e);
  scan_user_sockets_at(small, ::getuid(), "/nowhere", "/nowhere", "/nowhere", fd, r, no_litter);
  CHECK(small.warnings.empty());
  CHECK(std::find(small.dirs.begin(), small.dirs.end(), r + "/agent") != small.dirs.end());
  // Another user's dir is not entered (only the user's own servers trust the sandbox's user).
  UserSockets other;
  scan_user_sockets_at(other, ::getuid() + 1, "/nowhere", "/nowhere", "/nowhere", fd, r, top);
  CHECK(other.sockets.empty());
  ::close(fd);
  REQUIRE(std::system(("rm -rf '" + r + "'").c_str()) == 0);
}

// --- ~/.config entries overlayfs cannot copy up ------------------------------------------------

namespace {

HostFacts unmapped_host() {
  auto f = old_bwrap_host(Kind::Dir);
  f.overlay = true;
  f.inner_mounts = false;  // the binds as bwrap options, as --dry-run shows them
  f.ipc.cache_dir = "/home/u/.cache/blaude";
  f.ipc.config_unmapped = {{"grp", 1000, 100, true}, {"rootfile", 0, 0, false}, {std::string("odd\n\x1b[31m"), 1000, 100, false}};
  f.ipc.config_unmapped_marker = f.ipc.cache_dir + "/config-unmapped-1000";
  for (const auto& e : f.ipc.config_unmapped) put(f, kCfg + "/" + e.rel, e.dir ? Kind::Dir : Kind::File);
  return f;
}

bool warned(const LaunchPlan& p) {
  return std::any_of(p.warnings.begin(), p.warnings.end(),
                     [](const std::string& w) { return w.find("another user or group") != std::string::npos; });
}

}  // namespace

TEST_CASE("~/.config entries of another owner or group are read-only on the overlay, said once", "[sandbox][escapes]") {
  auto f = unmapped_host();
  auto p = plan_of(f);
  const long ovl = find(p.argv, {"--overlay-src", kCfg, "--tmp-overlay", kCfg});
  REQUIRE(ovl >= 0);
  for (const std::string& rel : {std::string("grp"), std::string("rootfile")}) {
    INFO(rel);
    const long at = find(p.argv, {"--ro-bind", kCfg + "/" + rel, kCfg + "/" + rel});
    CHECK(at > ovl);  // on the overlay, not under it
  }
  REQUIRE(warned(p));
  const std::string w = *std::find_if(p.warnings.begin(), p.warnings.end(), [](const std::string& s) {
    return s.find("another user or group") != std::string::npos;
  });
  CHECK(w.find("EOVERFLOW") != std::string::npos);
  INFO(w);
  CHECK(w.find("\n  sudo chown -R 1000:1000 '" + kCfg + "/grp' '" + kCfg + "/rootfile' $'" + kCfg + "/odd\\x0a\\x1b[31m'") !=
        std::string::npos);
  CHECK(w.find('\x1b') == std::string::npos);  // the odd name is escaped
  CHECK(w.find(kCfg + "/odd\\n\\e[31m (file, owner 1000, group 100)") != std::string::npos);
  // The marker: written by the prepare step (not at --dry-run), with the list.
  auto m = std::find_if(p.preparations.begin(), p.preparations.end(),
                        [&](const HostPrep& h) { return h.path == f.ipc.config_unmapped_marker; });
  REQUIRE(m != p.preparations.end());
  CHECK(m->content == config_unmapped_text(f.ipc.config_unmapped, 0));
  CHECK_FALSE(m->required);

  // Told before: the binds stay, the warning does not.
  f.ipc.config_unmapped_told = true;
  p = plan_of(f);
  CHECK(has(p.argv, {"--ro-bind", kCfg + "/grp", kCfg + "/grp"}));
  CHECK_FALSE(warned(p));

  // Only entries of your own group and owner: no sudo.
  f = unmapped_host();
  f.ipc.config_unmapped.erase(f.ipc.config_unmapped.begin() + 1);
  p = plan_of(f);
  REQUIRE(warned(p));
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& s) { return s.find("\n  chown -R 1000:1000 ") != std::string::npos; }));
}

TEST_CASE("a later -m DIR:rw over an unmapped ~/.config entry decides: no mount-order refusal", "[sandbox][escapes]") {
  auto f = unmapped_host();
  SandboxRequest r;
  r.mounts.push_back({kCfg + "/grp", true});
  f.mount_paths.push_back(kCfg + "/grp");
  f.mounts.push_back(f.at(kCfg + "/grp"));
  LaunchPlan p;
  REQUIRE_NOTHROW(p = plan_of(f, r));
  CHECK(find(p.argv, {"--bind", kCfg + "/grp", kCfg + "/grp"}) > find(p.argv, {"--ro-bind", kCfg + "/grp", kCfg + "/grp"}));
}

TEST_CASE("no overlay, or --allow-protected-writes: no read-only binds for unmapped entries", "[sandbox][escapes]") {
  auto f = unmapped_host();
  SandboxRequest r;
  r.allow_protected_writes = true;
  auto p = plan_of(f, r);
  CHECK_FALSE(has(p.argv, {"--ro-bind", kCfg + "/grp", kCfg + "/grp"}));
  f.overlay = false;
  f.inner_mounts = true;
  p = plan_of(f);  // the host-writable fallback: a plain bind, no copy-up at all
  CHECK_FALSE(has(p.argv, {"--ro-bind", kCfg + "/grp", kCfg + "/grp"}));
  CHECK_FALSE(warned(p));
}

TEST_CASE("the ~/.config scan: topmost unmapped entries, breadth first, links and git/blaude passed over, bounded",
          "[sandbox][escapes]") {
  TempDir t("blaude-unmapped");
  auto mk = [&](const std::string& rel) { REQUIRE(::mkdir((t.path + "/" + rel).c_str(), 0755) == 0); };
  auto file = [&](const std::string& rel) {
    int fd = ::open((t.path + "/" + rel).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    ::close(fd);
  };
  for (const char* d : {"a", "a/b", "git", "blaude", "z"}) mk(d);
  for (const char* x : {"a/b/f", "a/g", "git/config", "top"}) file(x);
  REQUIRE(::symlink("a", (t.path + "/link").c_str()) == 0);
  const uid_t u = ::getuid();
  const gid_t g = ::getgid();
  IpcFacts ipc;
  scan_config_unmapped(ipc, t.path, u, g);
  CHECK(ipc.config_unmapped.empty());  // all yours
  // Another gid for the scan: every entry is "another group"; only the topmost are listed.
  scan_config_unmapped(ipc, t.path, u, g + 1);
  std::vector<std::string> rels;
  for (const auto& e : ipc.config_unmapped) rels.push_back(e.rel);
  CHECK(rels == std::vector<std::string>{"a", "top", "z"});
  CHECK(ipc.config_unmapped[0].dir);
  CHECK_FALSE(ipc.config_unmapped[1].dir);
  CHECK_FALSE(ipc.config_unmapped_truncated);
  // Kept at most 2: the rest counted.
  scan_config_unmapped(ipc, t.path, u, g + 1, kConfigScanEntries, 2);
  CHECK(ipc.config_unmapped.size() == 2);
  CHECK(ipc.config_unmapped_more == 1);
  // The entries' own ids (the files are yours; the scan was told another gid).
  CHECK(config_unmapped_text(ipc.config_unmapped, ipc.config_unmapped_more) ==
        "a " + std::to_string(u) + ":" + std::to_string(g) + " dir\ntop " + std::to_string(u) + ":" +
            std::to_string(g) + "\n+1\n");
  // Told another uid: every entry is another user's. A file only its owner may write is passed
  // over (EACCES before any copy-up, and rm must keep working); one others may write is not.
  REQUIRE(::chmod((t.path + "/top").c_str(), 0644) == 0);
  file("open");
  REQUIRE(::chmod((t.path + "/open").c_str(), 0666) == 0);
  scan_config_unmapped(ipc, t.path, u + 1, g);
  rels.clear();
  for (const auto& e : ipc.config_unmapped) rels.push_back(e.rel);
  CHECK(rels == std::vector<std::string>{"a", "open", "z"});
  REQUIRE(::unlink((t.path + "/open").c_str()) == 0);
  // Entries looked at: at most 3.
  scan_config_unmapped(ipc, t.path, u, g, 3);
  CHECK(ipc.config_unmapped_truncated);
  // Descends into your own dirs only: with your ids, a/b/f of another owner would be found.
  if (u == 0) {
    REQUIRE(::chown((t.path + "/a/b/f").c_str(), 0, 100) == 0);
    scan_config_unmapped(ipc, t.path, u, g);
    REQUIRE(ipc.config_unmapped.size() == 1);
    CHECK(ipc.config_unmapped[0].rel == "a/b/f");
    CHECK(ipc.config_unmapped[0].gid == 100);
  }
}
