// Golden argv checks for the bwrap planner over synthetic hosts.
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "common/shell_quote.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/format.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/gate_args.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
using Argv = std::vector<std::string>;

namespace {


// A typical merged-/usr host: uid 1000, HOME /home/u, workspace /home/u/proj, bwrap 0.9+.
HostFacts host() { return typical_host(); }

// The seed's layout (/workspaces/<dir>): what these cases were written against; the host layout
// has its own cases ("the workspace at its host path").
SandboxRequest opts() {
  SandboxRequest r;
  r.seed_workspace = true;
  return r;
}

PlanInputs inputs() {
  PlanInputs in;
  in.env = {{"HOME", "/home/u"}, {"PATH", "/usr/bin"}};
  in.command = {"claude", "--dangerously-skip-permissions"};
  return in;
}


// What the repository scan reports for a gitdir (repo_scan_test covers the scan itself).
void add_git(HostFacts& f, const std::string& rel, Kind hooks) {
  f.ws.git.protect.push_back({f.cwd + "/" + rel + "/config", Guard::ReadOnly, "config"});
  f.ws.git.protect.push_back({f.cwd + "/" + rel + "/hooks", hooks == Kind::Missing ? Guard::EmptyDir : Guard::ReadOnly, "hooks"});
}
void guard(HostFacts& f, const std::string& path, Guard g = Guard::ReadOnly) { f.ws.git.protect.push_back({path, g, "test"}); }


}  // namespace

TEST_CASE("namespaces, privileges and the command", "[sandbox]") {
  auto p = plan(opts(), host(), inputs());
  const auto& a = p.argv;
  CHECK(a.front() == "/usr/bin/bwrap");
  CHECK(has(a, {"--unshare-user", "--uid", "1000", "--gid", "1000"}));
  CHECK(has(a, {"--unshare-pid"}));
  CHECK(has(a, {"--unshare-ipc"}));
  CHECK(has(a, {"--hostname", "blaude"}));
  CHECK(has(a, {"--unshare-cgroup-try"}));
  CHECK(has(a, {"--cap-drop", "ALL"}));
  CHECK(has(a, {"--die-with-parent"}));
  CHECK_FALSE(has(a, {"--new-session"}));  // the pty keeps TIOCSTI away from the user's shell
  CHECK_FALSE(has(a, {"--unshare-net"}));
  CHECK(find(a, {"--", "claude", "--dangerously-skip-permissions"}) == long(a.size()) - 3);

  auto f = host();
  f.stdio_tty = false;
  CHECK(has(plan(opts(), f, inputs()).argv, {"--new-session"}));
  f.uid = 0;
  f.gid = 0;
  CHECK(has(plan(opts(), f, inputs()).argv, {"--uid", "1000", "--gid", "1000"}));
  auto o = opts();
  o.no_network = true;
  CHECK(has(plan(o, host(), inputs()).argv, {"--unshare-net"}));
}

TEST_CASE("system dirs: merged /usr gets symlinks, split /usr gets binds", "[sandbox]") {
  auto a = plan(opts(), host(), inputs()).argv;
  CHECK(has(a, {"--ro-bind", "/usr", "/usr"}));
  CHECK(has(a, {"--symlink", "usr/bin", "/bin"}));
  CHECK(has(a, {"--symlink", "usr/lib64", "/lib64"}));
  CHECK_FALSE(has(a, {"--ro-bind", "/bin", "/bin"}));
  CHECK(has(a, {"--ro-bind", "/etc", "/etc"}));
  CHECK(has(a, {"--dev", "/dev", "--proc", "/proc"}));

  auto f = host();
  put(f, "/bin", Kind::Dir);
  put(f, "/lib", Kind::Dir);
  f.paths.erase("/lib64");
  a = plan(opts(), f, inputs()).argv;
  CHECK(has(a, {"--ro-bind", "/bin", "/bin"}));
  CHECK(has(a, {"--ro-bind", "/lib", "/lib"}));
  CHECK_FALSE(has(a, {"/lib64"}));
}

TEST_CASE("/tmp: shared with socket shadows, or a private tmpfs", "[sandbox]") {
  auto f = host();
  f.tmp_socket_dirs = {"/tmp/.X11-unix", "/tmp/tmux-1000"};
  auto a = plan(opts(), f, inputs()).argv;
  CHECK(has(a, {"--bind", "/tmp", "/tmp", "--tmpfs", "/tmp/.X11-unix", "--tmpfs", "/tmp/tmux-1000"}));
  CHECK(has(a, {"--tmpfs", "/var", "--tmpfs", "/run", "--tmpfs", "/run/user/1000"}));

  auto o = opts();
  o.clear_tmp = true;
  a = plan(o, f, inputs()).argv;
  CHECK(has(a, {"--tmpfs", "/tmp"}));
  CHECK_FALSE(has(a, {"/tmp/.X11-unix"}));
  CHECK_FALSE(has(a, {"--bind", "/tmp", "/tmp"}));

  o = opts();
  o.allow_protected_writes = true;
  a = plan(o, f, inputs()).argv;
  CHECK_FALSE(has(a, {"/tmp/tmux-1000"}));
}

// With the protect helper, the shadows are its mounts on the very objects the
// /tmp probe listed (no bwrap --tmpfs that would follow a symlink swapped in since).
TEST_CASE("/tmp shadows: the helper mounts them on the probed objects", "[sandbox]") {
  auto f = host();
  f.inner_mounts = true;
  f.tmp_socket_dirs = {"/tmp/.X11-unix"};
  f.tmp_socket_files = {"/tmp/dbus-abc"};
  f.tmp_ids["/tmp/.X11-unix"] = Identity{7, 11, S_IFDIR};
  f.tmp_ids["/tmp/dbus-abc"] = Identity{7, 12, S_IFSOCK};
  f.tmp_socket_links = {"/tmp/dbus-link"};
  auto p = plan(opts(), f, inputs());
  CHECK_FALSE(has(p.argv, {"--tmpfs", "/tmp/.X11-unix"}));
  CHECK_FALSE(has(p.argv, {"/tmp/dbus-abc"}));
  // The helper's mount at `path` in a plan, or null.
  auto inner = [](const LaunchPlan& lp, const std::string& path) -> const InnerMount* {
    for (const auto& m : lp.inner_mounts)
      if (m.path == path) return &m;
    return nullptr;
  };
  const InnerMount* d = inner(p, "/tmp/.X11-unix");
  const InnerMount* s = inner(p, "/tmp/dbus-abc");
  REQUIRE(d);
  REQUIRE(s);
  CHECK(d->kind == InnerKind::ShadowDir);
  CHECK(d->id == Identity{7, 11, S_IFDIR});
  CHECK(s->kind == InnerKind::ShadowFile);
  CHECK(s->id == Identity{7, 12, S_IFSOCK});
  // A seed name removed (or removed and made again) before the helper runs is passed over (or
  // the new object shadowed), not a refusal; a user's socket is only shadowed if still the same.
  CHECK(d->if_gone);
  CHECK(s->if_gone);
  CHECK_FALSE(d->if_same);
  CHECK_FALSE(s->if_same);
  CHECK(check_inner_mounts(p.inner_mounts).empty());
  // The user's tmux dir among the seed's names keeps its refusal: passed over when gone, the
  // sandbox could make it and squat it.
  {
    auto g = f;
    g.ipc.tmux_dir = "/tmp/tmux-1000";
    g.tmp_socket_dirs = {"/tmp/.X11-unix", "/tmp/tmux-1000"};
    g.tmp_ids["/tmp/tmux-1000"] = Identity{7, 13, S_IFDIR};
    auto q = plan(opts(), g, inputs());
    const InnerMount* t = inner(q, "/tmp/tmux-1000");
    const InnerMount* x = inner(q, "/tmp/.X11-unix");
    REQUIRE(t);
    REQUIRE(x);
    CHECK_FALSE(t->if_gone);
    CHECK_FALSE(t->if_same);
    CHECK(x->if_gone);
  }
  bool warned = false;
  for (const auto& w : p.warnings) warned |= w.find("/tmp/dbus-link is a symlink") != std::string::npos;
  CHECK(warned);
  // --dry-run's equivalent options say the same.
  CHECK(format_command(p).find("--ro-bind /dev/null /tmp/dbus-abc") != std::string::npos);

  f.tmp_changed = {"/tmp/dbus-abc"};  // renamed between the listing and its stat
  std::string err;
  try {
    plan(opts(), f, inputs());
  } catch (const std::exception& e) {
    err = e.what();
  }
  CHECK(err.find("/tmp/dbus-abc changed") != std::string::npos);
}

TEST_CASE("resolv.conf links resolve inside the sandbox", "[sandbox]") {
  const Argv expect = {"--dir", "/run/systemd/resolve", "--ro-bind-data", "@fd:resolv",
                       "/run/systemd/resolve/stub-resolv.conf"};
  for (std::string link : {"/run/systemd/resolve/stub-resolv.conf", "../run/systemd/resolve/stub-resolv.conf"}) {
    auto f = host();
    put_link(f, "/etc/resolv.conf", link, "/run/systemd/resolve/stub-resolv.conf", Kind::File);
    f.resolv_content = "nameserver 127.0.0.53\n";
    auto p = plan(opts(), f, inputs());
    INFO(link);
    CHECK(find(p.argv, expect) > find(p.argv, {"--tmpfs", "/run"}));
    REQUIRE(p.data_fds.size() >= 1);  // and the held binds' setup-done marker (held.hpp)
    CHECK(p.data_fds[0].token == "@fd:resolv");
    CHECK(p.data_fds[0].content == "nameserver 127.0.0.53\n");
  }
  auto f = host();
  put_link(f, "/etc/resolv.conf", "/run/nowhere", "", Kind::Missing);
  auto p = plan(opts(), f, inputs());
  CHECK_FALSE(has(p.argv, {"--ro-bind-data"}));
  CHECK(p.warnings.size() == 1);
  // A target the sandbox sees anyway (/etc is bound) needs nothing.
  f = host();
  put_link(f, "/etc/resolv.conf", "resolvconf/resolv.conf", "/etc/resolvconf/resolv.conf", Kind::File);
  f.resolv_content = "x";
  CHECK_FALSE(has(plan(opts(), f, inputs()).argv, {"--ro-bind-data"}));
}

TEST_CASE("$HOME: tmpfs scaffold, claude config writable, overlays or fallbacks", "[sandbox]") {
  auto f = host();
  put(f, "/home/u/.config", Kind::Dir);
  put(f, "/home/u/.claude.json", Kind::File);
  put(f, "/home/u/.local/bin", Kind::Dir);
  put(f, "/home/u/.cargo/bin", Kind::Dir);
  put(f, "/home/u/.npm", Kind::Dir);
  auto a = plan(opts(), f, inputs()).argv;
  CHECK(has(a, {"--tmpfs", "/home/u", "--dir", "/home/u/.local/bin"}));
  // Leaves only: bwrap makes their parents (each --dir walks its path on bwrap 0.9+).
  for (const char* parent : {"/home/u/.local", "/home/u/go", "/home/u/.cargo"}) CHECK_FALSE(has(a, {"--dir", parent}));
  for (const char* leaf : {"/home/u/.local/share", "/home/u/.cache", "/home/u/go/pkg", "/home/u/.cargo/registry"})
    CHECK(has(a, {"--dir", leaf}));
  CHECK(has(a, {"--overlay-src", "/home/u/.config", "--tmp-overlay", "/home/u/.config", "--tmpfs",
                "/home/u/.config/git", "--remount-ro", "/home/u/.config/git"}));
  CHECK(find(a, {"--bind", "/home/u/.claude", "/home/u/.claude"}) > find(a, {"--tmp-overlay", "/home/u/.config"}));
  CHECK(has(a, {"--bind", "/home/u/.claude.json", "/home/u/.claude.json"}));
  CHECK(has(a, {"--ro-bind", "/home/u/.local/bin", "/opt/host-bin"}));
  CHECK(has(a, {"--ro-bind", "/home/u/.cargo/bin", "/opt/host-cargo-bin"}));
  CHECK(has(a, {"--overlay-src", "/home/u/.npm", "--tmp-overlay", "/home/u/.npm"}));
  CHECK(find(a, {"--dir", "/opt"}) < find(a, {"--ro-bind", "/home/u/.local/bin", "/opt/host-bin"}));

  // bwrap 0.8: no overlays. Config and caches stay host-writable (said once), git config is ro.
  f.overlay = false;
  put(f, "/home/u/.config/git", Kind::Dir);
  auto p = plan(opts(), f, inputs());
  CHECK_FALSE(has(p.argv, {"--overlay-src"}));
  CHECK(has(p.argv, {"--bind", "/home/u/.config", "/home/u/.config", "--ro-bind", "/home/u/.config/git",
                     "/home/u/.config/git"}));
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("0.9") != std::string::npos);
  CHECK(p.warnings[0].find("\n  /home/u/.npm") != std::string::npos);
  CHECK(p.warnings[0].find("\n  /home/u/.config") != std::string::npos);
}

TEST_CASE("a symlinked ~/.config/git is never mounted on (found with bwrap 0.12)", "[sandbox]") {
  auto f = host();
  put(f, "/home/u/.config", Kind::Dir);
  put_link(f, "/home/u/.config/git", "../dotfiles/git", "/home/u/dotfiles/git", Kind::Dir);
  auto p = plan(opts(), f, inputs());
  CHECK(has(p.argv, {"--overlay-src", "/home/u/.config", "--tmp-overlay", "/home/u/.config"}));
  for (const auto& a : p.argv) {
    CHECK(a.find("/home/u/.config/git") == std::string::npos);  // no mount on the link
    CHECK(a.find("/home/u/dotfiles") == std::string::npos);     // nor on where it leads
  }
  REQUIRE(p.notes.size() == 1);
  CHECK(p.notes[0].find("/home/u/.config/git is a symlink") == 0);

  // Without overlays the link sits in a host-writable ~/.config: said, not hidden.
  f.overlay = false;
  p = plan(opts(), f, inputs());
  CHECK(has(p.argv, {"--bind", "/home/u/.config", "/home/u/.config"}));
  CHECK_FALSE(has(p.argv, {"--ro-bind", "/home/u/.config/git", "/home/u/.config/git"}));
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("/home/u/.config/git is a symlink") == 0; }));

  // A dangling link: no tmpfs on it either.
  f.overlay = true;
  put_link(f, "/home/u/.config/git", "/gone", "", Kind::Missing);
  p = plan(opts(), f, inputs());
  CHECK_FALSE(has(p.argv, {"--tmpfs", "/home/u/.config/git"}));
  // Control: a real dir is still bound read-only, a missing one gets the read-only placeholder.
  put(f, "/home/u/.config/git", Kind::Dir);
  CHECK(has(plan(opts(), f, inputs()).argv, {"--ro-bind", "/home/u/.config/git", "/home/u/.config/git"}));
  f.paths.erase("/home/u/.config/git");
  CHECK(has(plan(opts(), f, inputs()).argv, {"--tmpfs", "/home/u/.config/git", "--remount-ro", "/home/u/.config/git"}));
}

TEST_CASE("protected paths in a git workspace", "[sandbox]") {
  auto f = host();
  add_git(f, ".git", Kind::Dir);
  f.ws.hits.emplace_back(".bashrc", PathFact{Kind::File, Kind::File, "/home/u/proj/.bashrc", ""});
  f.ws.hits.emplace_back(".vscode", PathFact{Kind::Dir, Kind::Dir, "/home/u/proj/.vscode", ""});
  identify_all(f);
  auto a = plan(opts(), f, inputs()).argv;
  const std::string W = "/workspaces/proj", S = "/home/u/proj";
  long ws = find(a, {"--bind", S, W});
  REQUIRE(ws > 0);
  CHECK(find(a, {"--bind", S + "/.git", W + "/.git"}) > ws);  // pinned: cannot be renamed away
  CHECK(has(a, {"--ro-bind", S + "/.bashrc", W + "/.bashrc"}));
  CHECK(has(a, {"--ro-bind", S + "/.git/config", W + "/.git/config"}));
  CHECK(has(a, {"--ro-bind", S + "/.git/hooks", W + "/.git/hooks"}));
  CHECK(has(a, {"--ro-bind", S + "/.vscode", W + "/.vscode"}));
  // The pin comes before what it contains; the protections after every other mount.
  CHECK(find(a, {"--bind", S + "/.git", W + "/.git"}) < find(a, {"--ro-bind", S + "/.git/config", W + "/.git/config"}));
  CHECK(find(a, {"--chdir", W}) < find(a, {"--ro-bind", S + "/.git/config", W + "/.git/config"}));

  // Where blaude mounts them itself: the same list, and bwrap's argv holds only the gate.
  f.inner_mounts = true;
  auto p = plan(opts(), f, inputs());
  CHECK_FALSE(has(p.argv, {"--ro-bind", S + "/.git/config", W + "/.git/config"}));
  CHECK(has(p.argv, {"--file", "@fd:protect-gate", "/run/blaude/gate"}));
  bool config = false;
  for (const auto& m : p.inner_mounts) config |= m.path == W + "/.git/config" && m.kind == InnerKind::ReadOnly;
  CHECK(config);

  auto o = opts();
  o.allow_protected_writes = true;
  a = plan(o, f, inputs()).argv;
  CHECK_FALSE(has(a, {"--ro-bind", S + "/.git/config", W + "/.git/config"}));
}

TEST_CASE("a missing .git/hooks is read-only and empty, .git itself stays writable", "[sandbox]") {
  auto f = host();
  add_git(f, ".git", Kind::Missing);
  identify_all(f);
  auto p = plan(opts(), f, inputs());
  // Made by the launcher and bound by held descriptor (no --tmpfs: it would follow a planted link).
  CHECK(has(p.argv, {"--ro-bind", "/home/u/proj/.git/hooks", "/workspaces/proj/.git/hooks"}));
  CHECK(std::any_of(p.held.begin(), p.held.end(), [](const auto& h) { return h.make_dir && h.host == "/home/u/proj/.git/hooks"; }));
  CHECK_FALSE(has(p.argv, {"--tmp-overlay", "/workspaces/proj/.git"}));
  CHECK_FALSE(has(p.argv, {"--ro-bind", "/home/u/proj/.git", "/workspaces/proj/.git"}));
  CHECK(p.notes.size() == 1);
}

TEST_CASE("symlinked protected names are never bound", "[sandbox]") {
  auto f = host();
  // .bashrc → ~/.ssh/id_rsa (outside): warn, bind nothing. .zshrc → a workspace file: protect that.
  f.ws.hits.emplace_back(".bashrc", PathFact{Kind::Symlink, Kind::File, "/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa"});
  f.ws.hits.emplace_back(".zshrc", PathFact{Kind::Symlink, Kind::File, "/home/u/proj/dot/zshrc", "dot/zshrc"});
  f.ws.hits.emplace_back(".vscode", PathFact{Kind::Symlink, Kind::Dir, "/etc", "/etc"});
  identify_all(f);
  auto p = plan(opts(), f, inputs());
  CHECK_FALSE(has(p.argv, {"/home/u/.ssh/id_rsa"}));
  CHECK_FALSE(has(p.argv, {"/home/u/proj/.bashrc"}));
  CHECK_FALSE(has(p.argv, {"/home/u/proj/.vscode"}));
  CHECK(has(p.argv, {"--bind", "/home/u/proj/dot", "/workspaces/proj/dot"}));
  CHECK(has(p.argv, {"--ro-bind", "/home/u/proj/dot/zshrc", "/workspaces/proj/dot/zshrc"}));
  CHECK(p.warnings.size() == 3);
}

TEST_CASE("nested repos, submodules and core.hooksPath", "[sandbox]") {
  auto f = host();
  const std::string W = "/workspaces/proj", S = "/home/u/proj";
  add_git(f, ".git", Kind::Dir);
  guard(f, S + "/.husky");
  add_git(f, "packages/app/.git", Kind::Dir);
  add_git(f, ".git/modules/lib", Kind::Missing);
  guard(f, S + "/tools", Guard::EmptyDir);
  auto a = plan(opts(), identify_all(f), inputs()).argv;
  CHECK(has(a, {"--ro-bind", S + "/.husky", W + "/.husky"}));
  for (std::string pin : {"packages", "packages/app", "packages/app/.git", ".git/modules", ".git/modules/lib"})
    CHECK(has(a, {"--bind", S + "/" + pin, W + "/" + pin}));
  CHECK(has(a, {"--ro-bind", S + "/packages/app/.git/hooks", W + "/packages/app/.git/hooks"}));
  CHECK(has(a, {"--ro-bind", S + "/.git/modules/lib/config", W + "/.git/modules/lib/config"}));
  CHECK(has(a, {"--ro-bind", S + "/.git/modules/lib/hooks", W + "/.git/modules/lib/hooks"}));
  CHECK(has(a, {"--ro-bind", S + "/tools", W + "/tools"}));
}

TEST_CASE("a protection whose identity the probe lacks fails closed", "[sandbox]") {
  auto f = host();
  add_git(f, ".git", Kind::Dir);
  identify_all(f);
  f.ws.ids.erase("/home/u/proj/.git/config");
  f.inner_mounts = true;
  CHECK_THROWS_AS(plan(opts(), f, inputs()), PlanError);
}

TEST_CASE("nothing is pinned inside a guarded dir", "[sandbox]") {
  auto f = host();
  f.ws.hits.emplace_back(".vscode", PathFact{Kind::Dir, Kind::Dir, "/home/u/proj/.vscode", ""});
  f.ws.hits.emplace_back(".vscode/sub/.bashrc", PathFact{Kind::File, Kind::File, "", ""});
  auto a = plan(opts(), identify_all(f), inputs()).argv;
  CHECK_FALSE(has(a, {"--bind", "/home/u/proj/.vscode/sub", "/workspaces/proj/.vscode/sub"}));
}

TEST_CASE("the workspace is protected at every writable alias", "[sandbox]") {
  auto f = host();
  f.cwd = "/tmp/work/proj";
  add_git(f, ".git", Kind::Dir);
  identify_all(f);
  auto a = plan(opts(), f, inputs()).argv;
  CHECK(has(a, {"--ro-bind", "/tmp/work/proj/.git/config", "/workspaces/proj/.git/config"}));
  CHECK(has(a, {"--ro-bind", "/tmp/work/proj/.git/config", "/tmp/work/proj/.git/config"}));
  // With the protect helper: through the rw /tmp the workspace is one mirror of its own bind.
  f.inner_mounts = true;
  auto inner = plan(opts(), f, inputs()).inner_mounts;
  size_t at_alias = 0, mirrors = 0;
  for (const auto& m : inner) {
    at_alias += m.path.rfind("/tmp/work/proj/", 0) == 0;
    mirrors += m.kind == InnerKind::Mirror && m.path == "/tmp/work/proj" && m.from == "/workspaces/proj";
  }
  CHECK(mirrors == 1);
  CHECK(at_alias == 0);
  f.inner_mounts = false;
  auto o = opts();
  o.clear_tmp = true;  // no host /tmp in the sandbox: one alias
  CHECK_FALSE(has(plan(o, f, inputs()).argv, {"--ro-bind", "/tmp/work/proj/.git/config", "/tmp/work/proj/.git/config"}));

  // Through a -m DIR:rw and through a policy grant.
  f = host();
  f.cwd = "/srv/code/proj";
  add_git(f, ".git", Kind::Dir);
  identify_all(f);
  put(f, "/srv/code", Kind::Dir);
  f.mount_paths = {"/srv/code"};
  f.mounts = {f.at("/srv/code")};
  o = opts();
  o.mounts = {{"/srv/code", true}};
  CHECK(has(plan(o, f, inputs()).argv, {"--ro-bind", "/srv/code/proj/.git/config", "/srv/code/proj/.git/config"}));
  f.mounts.clear();
  f.mount_paths.clear();
  auto in = inputs();
  in.grants = {Grant{Access::Write, "/srv", "test"}};
  put(f, "/srv", Kind::Dir);
  a = plan(opts(), f, in).argv;
  CHECK(find(a, {"--bind", "/srv", "/srv"}) < find(a, {"--bind", "/srv/code/proj", "/workspaces/proj"}));
  CHECK(has(a, {"--ro-bind", "/srv/code/proj/.git/config", "/srv/code/proj/.git/config"}));
}

TEST_CASE("$HOME and its parents are refused as workspace and as mounts", "[sandbox]") {
  for (std::string cwd : {"/home/u", "/home", "/"}) {
    auto f = host();
    f.cwd = cwd;
    INFO(cwd);
    CHECK_THROWS_AS(plan(opts(), f, inputs()), PlanError);
    auto o = opts();
    o.allow_protected_writes = true;
    CHECK_NOTHROW(plan(o, f, inputs()));
    o = opts();
    o.tmp = true;
    CHECK(has(plan(o, f, inputs()).argv, {"--chdir", "/tmp"}));
  }
  // A symlinked HOME: the canonical path counts.
  auto f = host();
  f.home = "/home/u";
  f.home_real = "/data/u";
  f.cwd = "/data/u";
  CHECK_THROWS_AS(plan(opts(), f, inputs()), PlanError);
}

TEST_CASE("-m: missing, broken, home, symlinked, rw", "[sandbox]") {
  auto run = [](PathFact pf, bool rw = false, bool apw = false) {
    auto f = host();
    f.mount_paths = {"/data/x"};
    f.mounts = {pf};
    if (!pf.real.empty()) f.paths[pf.real] = PathFact{pf.kind, pf.kind, pf.real, ""};
    auto o = opts();
    o.mounts = {{"/data/x", rw}};
    o.allow_protected_writes = apw;
    return plan(o, f, inputs());
  };
  auto error = [&](PathFact pf) -> std::string {
    try {
      run(pf);
    } catch (const PlanError& e) {
      CHECK_FALSE(e.hint.empty());
      return e.what();
    }
    return "(no error)";
  };
  CHECK(error(PathFact{}).find("does not exist") != std::string::npos);
  CHECK(error(PathFact{Kind::Symlink, Kind::Missing, "", "/gone"}).find("broken symlink") != std::string::npos);
  CHECK(error(PathFact{Kind::Dir, Kind::Dir, "/home/u", ""}).find("home") != std::string::npos);
  CHECK(error(PathFact{Kind::Dir, Kind::Dir, "/home", ""}).find("home") != std::string::npos);
  CHECK(error(PathFact{Kind::Dir, Kind::Dir, "/", ""}).find("home") != std::string::npos);
  CHECK_NOTHROW(run(PathFact{Kind::Dir, Kind::Dir, "/home", ""}, false, true));
  CHECK(has(run(PathFact{Kind::Dir, Kind::Dir, "/data/x", ""}).argv, {"--ro-bind", "/data/x", "/data/x"}));
  CHECK(has(run(PathFact{Kind::Dir, Kind::Dir, "/data/x", ""}, true).argv, {"--bind", "/data/x", "/data/x"}));
  auto p = run(PathFact{Kind::Symlink, Kind::Dir, "/data/real", "real"});
  CHECK(has(p.argv, {"--ro-bind", "/data/real", "/data/real"}));
  CHECK(p.notes.size() == 1);
}

TEST_CASE("environment: cleared, then exactly the given list", "[sandbox]") {
  auto f = host();
  f.env = {{"GH_TOKEN", "ghp_x"}, {"SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.socket"}};
  put(f, "/run/user/1000/ssh-agent.socket", Kind::Socket);
  auto a = plan(opts(), f, inputs()).argv;
  long clear = find(a, {"--clearenv"});
  CHECK(clear > find(a, {"--chdir", "/workspaces/proj"}));
  CHECK(find(a, {"--setenv", "HOME", "/home/u"}) > clear);
  CHECK_FALSE(has(a, {"ghp_x"}));
  CHECK_FALSE(has(a, {"SSH_AUTH_SOCK"}));

  auto o = opts();
  o.git = true;
  o.ssh = true;
  a = plan(o, f, inputs()).argv;
  // The variables are the environment policy's to pass (filter_env; the real binary's test is
  // test_sandbox_attacks): the planner adds none of its own.
  CHECK_FALSE(has(a, {"ghp_x"}));
  // The agent socket itself, never its parent (all of /run/user/1000).
  CHECK(has(a, {"--bind", "/run/user/1000/ssh-agent.socket", "/run/user/1000/ssh-agent.socket"}));
  CHECK_FALSE(has(a, {"--bind", "/run/user/1000", "/run/user/1000"}));

  // The environment is exactly the policy's list, in every mode (--keep-env's list is the host's
  // minus what must go): bwrap clears its own first, so nothing else can arrive.
  auto in = inputs();
  in.env = {{"PATH", "/usr/bin"}, {"KEPT", "1"}};
  a = plan(opts(), f, in).argv;
  CHECK(find(a, {"--clearenv"}) >= 0);
  CHECK(find(a, {"--clearenv"}) < find(a, {"--setenv", "KEPT", "1"}));
  CHECK(count(a, "--setenv") == 2);
  CHECK_FALSE(mentions(a, "--unsetenv"));
}

TEST_CASE("sandbox PATH", "[sandbox]") {
  auto f = host();
  CHECK(sandbox_path(f) ==
        "/home/u/.local/bin:/home/u/go/bin:/home/u/.cargo/bin:/home/u/.bun/bin:/opt/host-bin:"
        "/opt/host-cargo-bin:/opt/host-go-bin:/usr/local/bin:/usr/bin:/bin:/sbin:/usr/sbin");
  f.nvm_node_bin = "/home/u/.nvm/versions/node/v20.1.0/bin";
  CHECK(sandbox_path(f).find(":/home/u/.nvm/versions/node/v20.1.0/bin:") != std::string::npos);
  f.nvm_node_bin = "/elsewhere/node/bin";  // not mounted: not on PATH
  CHECK(sandbox_path(f).find("/elsewhere") == std::string::npos);
}

TEST_CASE("--dry-run formatting is shell-quoted, one group per line", "[sandbox]") {
  CHECK(shell_quote("plain/path-1.2") == "plain/path-1.2");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b$c") == "'a b$c'");
  std::string s = format_command("bwrap",
                                 ops_from_words({"--unshare-pid", "--ro-bind", "/a b", "/a b", "--overlay-src", "/x",
                                                 "--tmp-overlay", "/y", "--setenv", "K", "v'q"}),
                                 {"--", "sh", "-c", "echo hi"});
  CHECK(s ==
        "bwrap \\\n  --unshare-pid \\\n  --ro-bind '/a b' '/a b' \\\n  --overlay-src /x --tmp-overlay /y \\\n"
        "  --setenv K 'v'\\''q' \\\n  -- sh -c 'echo hi'\n");
}

// With the protect helper, /dev is its mount (InnerKind::Dev, first: the shadows clone
// its /dev/null) on a plain bwrap --tmpfs, not bwrap's --dev; --dry-run still prints --dev.
TEST_CASE("/dev: the helper's where it runs, bwrap's --dev elsewhere", "[sandbox]") {
  auto f = host();
  f.inner_mounts = true;
  f.tmp_socket_files = {"/tmp/dbus-abc"};
  f.tmp_ids["/tmp/dbus-abc"] = Identity{7, 12, S_IFSOCK};
  auto p = plan(opts(), f, inputs());
  CHECK(has(p.argv, {"--tmpfs", "/dev", "--proc", "/proc"}));
  CHECK_FALSE(has(p.argv, {"--dev"}));
  REQUIRE_FALSE(p.inner_mounts.empty());
  CHECK(p.inner_mounts.front().path == "/dev");
  CHECK(p.inner_mounts.front().kind == InnerKind::Dev);
  size_t devs = 0;
  for (const auto& m : p.inner_mounts) devs += m.kind == InnerKind::Dev;
  CHECK(devs == 1);
  CHECK(check_inner_mounts(p.inner_mounts).empty());
  const std::string shown = format_command(p);
  CHECK(shown.find("\n  --dev /dev \\\n  --proc /proc \\\n") != std::string::npos);  // in its place
  CHECK(shown.find("--tmpfs /dev ") == std::string::npos);
  CHECK(shown.find("\n  --dev /dev") == shown.rfind("\n  --dev /dev"));  // once
  CHECK(shown.find("# --dev /dev is blaude's too") != std::string::npos);

  // Under --tmp (no protections, no shadows) the helper still runs, for /dev alone.
  auto o = opts();
  o.tmp = true;
  auto f2 = host();
  f2.inner_mounts = true;
  p = plan(o, f2, inputs());
  CHECK(has(p.argv, {"--tmpfs", "/dev"}));
  REQUIRE_FALSE(p.inner_mounts.empty());
  CHECK(p.inner_mounts.front().kind == InnerKind::Dev);
  for (size_t i = 1; i < p.inner_mounts.size(); ++i)  // the rest: bwrap's leaf binds (lifted), no protection
    CHECK((p.inner_mounts[i].kind == InnerKind::Bind || p.inner_mounts[i].kind == InnerKind::RoBind));
  CHECK(has(p.argv, {"--file", "@fd:protect-gate", "/run/blaude/gate"}));
  CHECK(format_command(p).find("the protected paths") == std::string::npos);

  // No helper (setuid bwrap, old kernel): bwrap's own --dev, nothing inner for it.
  auto g = host();
  g.inner_mounts = false;
  p = plan(opts(), g, inputs());
  CHECK(has(p.argv, {"--dev", "/dev", "--proc", "/proc"}));
  CHECK_FALSE(has(p.argv, {"--tmpfs", "/dev"}));
  for (const auto& m : p.inner_mounts) CHECK(m.kind != InnerKind::Dev);

  // A bwrap mount below /dev (a -m there) would end up under the helper's nodes: bwrap's --dev
  // then, as before.
  auto h = host();
  h.inner_mounts = true;
  put(h, "/dev/dri", Kind::Dir);
  h.mount_paths = {"/dev/dri"};
  h.mounts = {h.at("/dev/dri")};
  o = opts();
  o.mounts = {{"/dev/dri", false}};
  p = plan(o, h, inputs());
  CHECK(has(p.argv, {"--dev", "/dev", "--proc", "/proc"}));
  CHECK(find(p.argv, {"--dev", "/dev"}) < find(p.argv, {"--ro-bind", "/dev/dri", "/dev/dri"}));
  for (const auto& m : p.inner_mounts) CHECK(m.kind != InnerKind::Dev);
}

// Bwrap's leaf binds (the workspace, ~/.claude, ...) are the helper's where it runs: out
// of argv (bwrap re-reads the mount table after each), in inner_mounts after /dev and before the
// protections that land in them, each with the identity the helper holds its source to.
TEST_CASE("leaf binds: the helper's where it runs, bwrap's otherwise", "[sandbox]") {
  auto f = host();
  f.inner_mounts = true;
  identify_all(f);
  f.cwd_id = Identity{1, 42, S_IFDIR};
  auto p = plan(opts(), f, inputs());
  const auto at = [](const LaunchPlan& lp, const std::string& path) -> const InnerMount* {
    for (const auto& m : lp.inner_mounts)
      if (m.path == path) return &m;
    return nullptr;
  };
  CHECK_FALSE(has(p.argv, {"--bind", "/home/u/proj", "/workspaces/proj"}));
  const InnerMount* ws = at(p, "/workspaces/proj");
  REQUIRE(ws);
  CHECK(ws->kind == InnerKind::Bind);
  CHECK(ws->host == "/home/u/proj");
  CHECK(ws->id == f.cwd_id);  // the probe's: the dir blaude runs in
  // ~/.claude is not a leaf: Claude Code's missing dirs land in it (plan.cpp
  // add_claude_code_guards; here as tmpfs, the probe not having pinned ~/.claude), so bwrap
  // binds it.
  CHECK_FALSE(at(p, "/home/u/.claude"));
  CHECK(has(p.argv, {"--bind", "/home/u/.claude", "/home/u/.claude"}));
  CHECK(has(p.argv, {"--tmpfs", "/home/u/.claude/commands"}));
  // The order: /dev, the binds, then what lands in them.
  CHECK(p.inner_mounts.front().kind == InnerKind::Dev);
  CHECK(check_inner_mounts(p.inner_mounts).empty());
  size_t ws_at = 0, git_at = 0;
  for (size_t i = 0; i < p.inner_mounts.size(); ++i) {
    if (p.inner_mounts[i].path == "/workspaces/proj") ws_at = i;
    if (p.inner_mounts[i].path.rfind("/workspaces/proj/", 0) == 0 && !git_at) git_at = i;
  }
  CHECK(ws_at > 0);
  if (git_at) CHECK(ws_at < git_at);
  // Not re-checked by the exec shim: the helper checked them.
  for (const auto& c : p.checks) {
    CHECK(c.dst != "/workspaces/proj");
    CHECK(c.dst != "/home/u/.claude");
  }
  // --dry-run shows them as the binds they stand for.
  const std::string shown = format_command(p);
  CHECK(shown.find("--bind /home/u/proj /workspaces/proj") != std::string::npos);
  CHECK(shown.find("binds of leaf dirs and files") != std::string::npos);
  // Never one that lands on a host dir (its mount point would be made on the host), or has bwrap's
  // mounts below it: -m /srv and -m /srv/x keep both binds bwrap's; -m /tmp/data (inside the
  // host's /tmp bind) too.
  auto g = f;
  put(g, "/srv", Kind::Dir);
  put(g, "/srv/x", Kind::Dir);
  put(g, "/tmp/data", Kind::Dir);
  g.mount_paths = {"/srv", "/srv/x", "/tmp/data"};
  g.mounts = {g.at("/srv"), g.at("/srv/x"), g.at("/tmp/data")};
  auto o = opts();
  o.mounts = {{"/srv", true}, {"/srv/x", false}, {"/tmp/data", true}};
  auto q = plan(o, g, inputs());
  CHECK(has(q.argv, {"--bind", "/srv", "/srv"}));
  CHECK(has(q.argv, {"--ro-bind", "/srv/x", "/srv/x"}));
  CHECK(has(q.argv, {"--bind", "/tmp/data", "/tmp/data"}));
  CHECK_FALSE(at(q, "/srv"));
  CHECK_FALSE(at(q, "/tmp/data"));
  CHECK(at(q, "/workspaces/proj"));  // the others still are
  // A lone -m on the root tmpfs is a leaf like the rest: the helper's, read-only.
  o.mounts = {{"/srv/x", false}};
  g.mount_paths = {"/srv/x"};
  g.mounts = {g.at("/srv/x")};
  q = plan(o, g, inputs());
  CHECK_FALSE(has(q.argv, {"--ro-bind", "/srv/x", "/srv/x"}));
  REQUIRE(at(q, "/srv/x"));
  CHECK(at(q, "/srv/x")->kind == InnerKind::RoBind);
  // The option's off switch, and the fallback: bwrap's binds as before.
  auto h = f;
  h.env["BLAUDE_LIFT_BINDS"] = "off";
  CHECK(has(plan(opts(), h, inputs()).argv, {"--bind", "/home/u/proj", "/workspaces/proj"}));
  h = f;
  h.inner_mounts = false;
  p = plan(opts(), h, inputs());
  CHECK(has(p.argv, {"--bind", "/home/u/proj", "/workspaces/proj"}));
  for (const auto& m : p.inner_mounts) CHECK((m.kind != InnerKind::Bind && m.kind != InnerKind::RoBind));
}

// The default layout: the project at its own path, the working directory there, /workspaces/<dir>
// a link to it in bwrap's root (one path to protect).
TEST_CASE("the workspace at its host path", "[sandbox][hostpath]") {
  SandboxRequest host_layout;
  const std::string S = "/home/u/proj";
  auto f = host();
  add_git(f, ".git", Kind::Dir);
  identify_all(f);
  auto a = plan(host_layout, f, inputs()).argv;
  CHECK(has(a, {"--bind", S, S}));
  CHECK(has(a, {"--symlink", S, "/workspaces/proj"}));
  CHECK(has(a, {"--chdir", S}));
  CHECK(has(a, {"--ro-bind", S + "/.git/config", S + "/.git/config"}));
  CHECK(has(a, {"--ro-bind", S + "/.git/hooks", S + "/.git/hooks"}));
  // Nothing is mounted below /workspaces: the link leads into the protected bind.
  for (const auto& w : a) CHECK(w.rfind("/workspaces/proj/", 0) == std::string::npos);
  CHECK(find(a, {"--bind", S, S}) < find(a, {"--ro-bind", S + "/.git/config", S + "/.git/config"}));

  SECTION("two projects of the same name: two working directories") {
    auto g = host();
    g.cwd = "/home/u/other/proj";
    CHECK(has(plan(host_layout, g, inputs()).argv, {"--chdir", "/home/u/other/proj"}));
    CHECK(has(plan(host_layout, host(), inputs()).argv, {"--chdir", "/home/u/proj"}));
  }
  SECTION("any character in the path, as it is") {
    auto g = host();
    g.cwd = "/home/u/my proj\nx";
    auto b = plan(host_layout, g, inputs()).argv;
    CHECK(has(b, {"--chdir", "/home/u/my proj\nx"}));
    CHECK(has(b, {"--symlink", "/home/u/my proj\nx", "/workspaces/my_proj_x"}));
  }
  SECTION("under the host's /tmp: the workspace's own bind is the /tmp alias, no mirror, no second copy") {
    auto g = host();
    g.cwd = "/tmp/work/proj";
    add_git(g, ".git", Kind::Dir);
    identify_all(g);
    g.inner_mounts = true;
    auto p = plan(host_layout, g, inputs());
    size_t config = 0, mirrors = 0, ws_pins = 0, parent_pins = 0;
    for (const auto& m : p.inner_mounts) {
      config += m.path == "/tmp/work/proj/.git/config";
      mirrors += m.kind == InnerKind::Mirror;
      ws_pins += m.kind == InnerKind::Pin && m.path == "/tmp/work/proj";
      parent_pins += m.kind == InnerKind::Pin && m.path == "/tmp/work";
    }
    CHECK(config == 1);
    CHECK(mirrors == 0);
    CHECK(ws_pins == 0);
    CHECK(parent_pins == 1);  // /tmp/work cannot be renamed away with the project in it
    CHECK(check_inner_mounts(p.inner_mounts).empty());
    // As bwrap options: the guards once; the pin above the project cannot be made (a bwrap bind
    // of the host's /tmp/work would hide the project's bind below it), and that is said.
    g.inner_mounts = false;
    auto b = plan(host_layout, g, inputs());
    CHECK(std::count(b.argv.begin(), b.argv.end(), "/tmp/work/proj/.git/config") == 2);  // one --ro-bind SRC DST
    CHECK_FALSE(has(b.argv, {"--bind", "/tmp/work", "/tmp/work"}));
    CHECK(std::any_of(b.warnings.begin(), b.warnings.end(), [](const std::string& w) { return w.find("/tmp/work is not pinned") == 0; }));
  }
  SECTION("a project in a dir the sandbox mounts itself is refused, the seed's layout named") {
    for (std::string cwd : {"/proc/1/cwd", "/sys/x", "/dev/shm/x", "/run/blaude/x"}) {
      auto g = host();
      g.cwd = cwd;
      INFO(cwd);
      try {
        plan(host_layout, g, inputs());
        FAIL("not refused");
      } catch (const PlanError& e) {
        CHECK(std::string(e.hint).find("--workspace-path=seed") != std::string::npos);
      }
      CHECK_NOTHROW(plan(opts(), g, inputs()));  // control: the seed's layout takes it
    }
    auto g = host();
    g.cwd = "/home/u/.config";  // holds ~/.config/git's read-only bind
    put(g, "/home/u/.config", Kind::Dir);
    CHECK_THROWS_AS(plan(host_layout, g, inputs()), PlanError);
  }
  SECTION("your home with --allow-protected-writes: at /workspaces/<dir> only, said") {
    auto g = host();
    g.cwd = "/home/u";
    SandboxRequest o;
    o.allow_protected_writes = true;
    auto p = plan(o, g, inputs());
    CHECK(has(p.argv, {"--chdir", "/workspaces/u"}));
    CHECK_FALSE(has(p.argv, {"--bind", "/home/u", "/home/u"}));
    CHECK(std::any_of(p.notes.begin(), p.notes.end(), [](const std::string& n) { return n.find("/workspaces/u only") != std::string::npos; }));
  }
  SECTION("no link where it would be part of the project") {
    for (std::string cwd : {"/workspaces/proj", "/workspaces", "/workspaces/proj/proj"}) {
      auto g = host();
      g.cwd = cwd;
      INFO(cwd);
      auto b = plan(host_layout, g, inputs()).argv;
      CHECK(has(b, {"--chdir", cwd}));
      CHECK_FALSE(has(b, {"--symlink", cwd}));
    }
  }
  SECTION("the seed's layout: the host path is not mounted") {
    auto p = plan(opts(), f, inputs()).argv;
    CHECK(has(p, {"--bind", S, "/workspaces/proj"}));
    CHECK(has(p, {"--chdir", "/workspaces/proj"}));
    CHECK_FALSE(has(p, {"--bind", S, S}));
    CHECK_FALSE(has(p, {"--symlink", S, "/workspaces/proj"}));
  }
}
