// The plan made while the workspace scan still runs (bwrap/plan/deferred.hpp) is the plan made after
// it: the same bwrap argv (plus the gate, which a deferred plan always has) and, once finished,
// the same helper mounts, warnings and notes. Over synthetic hosts with nested repositories,
// protected names, symlinks, a workspace under /tmp (the mirror alias) and a failing layout.
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_host.hpp"
#include "bwrap/pending_host.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/gate_args.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;

namespace {

PlanInputs inputs() {
  PlanInputs in;
  in.env = {{"HOME", "/home/u"}, {"PATH", "/usr/bin"}};
  in.command = {"claude", "--dangerously-skip-permissions"};
  return in;
}

// A workspace at `cwd` with repositories at several depths, protected names and links.
HostFacts scanned_host(const std::string& cwd) {
  HostFacts f = typical_host();
  f.cwd = cwd;
  f.inner_mounts = true;
  auto git = [&](const std::string& rel, Guard hooks) {
    f.ws.git.protect.push_back({cwd + "/" + rel + "/config", Guard::ReadOnly, "config of " + rel});
    f.ws.git.protect.push_back({cwd + "/" + rel + "/hooks", hooks, "hooks of " + rel});
  };
  git(".git", Guard::ReadOnly);
  git("packages/a/.git", Guard::ReadOnly);
  git("node_modules/x/y/z/deep/.git", Guard::EmptyDir);
  f.ws.git.protect.push_back({cwd + "/.husky", Guard::ReadOnly, "core.hooksPath"});
  f.ws.git.warnings.push_back("an include outside the workspace");
  f.ws.hits.emplace_back(".bashrc", PathFact{Kind::File, Kind::File, cwd + "/.bashrc", ""});
  f.ws.hits.emplace_back(".vscode", PathFact{Kind::Dir, Kind::Dir, cwd + "/.vscode", ""});
  f.ws.hits.emplace_back(".envrc", PathFact{Kind::Symlink, Kind::File, "/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa"});
  f.ws.links.push_back({"docs/out", "/etc/shadow-ish"});
  f.ws.root = cwd;
  f.ws.dirs = 42;
  identify_all(f);
  return f;
}

// The user's own sockets in /tmp as the probe finds them (probe_ipc.cpp): a dir of sockets only,
// sockets in dirs that hold more, a warning that the scan stopped at its bound; and tmux's
// socket dir outside /tmp (TMUX_TMPDIR=~/.claude), whose shadow plan() adds after theirs.
HostFacts with_user_sockets(HostFacts f) {
  f.tmp_user_socket_dirs = {"/tmp/emacs1000"};
  f.tmp_user_sockets = {"/tmp/emacs1000/server", "/tmp/nv/x/nvim.1.0", "/tmp/solo/s.sock"};
  f.tmp_ids["/tmp/emacs1000"] = Identity{7, 100, S_IFDIR};
  f.tmp_ids["/tmp/emacs1000/server"] = Identity{7, 101, S_IFSOCK};
  f.tmp_ids["/tmp/nv/x/nvim.1.0"] = Identity{7, 102, S_IFSOCK};
  f.tmp_ids["/tmp/solo/s.sock"] = Identity{7, 103, S_IFSOCK};
  f.probe_warnings.push_back("the scan for your own sockets in /tmp stopped after 256 dirs: ...");
  put(f, "/home/u/.claude", Kind::Dir);
  f.ipc.tmux_dir = "/home/u/.claude/tmux-1000";
  return f;
}

std::vector<std::string> without_gate(std::vector<std::string> argv) {
  const auto gate = gate_args(kInfoToken, kGateToken);
  auto it = std::search(argv.begin(), argv.end(), gate.begin(), gate.end());
  if (it != argv.end()) argv.erase(it, it + long(gate.size()));
  return argv;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void check_same(const HostFacts& done, const SandboxRequest& req) {
  LaunchPlan whole = plan(req, done, inputs());
  HostFacts pf = pending_host(done);
  LaunchPlan part = plan(req, pf, inputs());
  REQUIRE(part.deferred);
  CHECK(part.inner_mounts.empty());
  CHECK(without_gate(part.argv) == without_gate(whole.argv));
  const auto gate = gate_args(kInfoToken, kGateToken);
  CHECK(std::search(part.argv.begin(), part.argv.end(), gate.begin(), gate.end()) != part.argv.end());
  const auto& r = part.deferred->finish();
  REQUIRE(r.error.empty());
  REQUIRE(r.mounts.size() == whole.inner_mounts.size());
  for (size_t i = 0; i < r.mounts.size(); ++i) {
    CHECK(r.mounts[i].path == whole.inner_mounts[i].path);
    CHECK(r.mounts[i].kind == whole.inner_mounts[i].kind);
    CHECK(r.mounts[i].id == whole.inner_mounts[i].id);
    CHECK(r.mounts[i].from == whole.inner_mounts[i].from);
  }
  auto w = part.warnings;
  w.insert(w.end(), r.warnings.begin(), r.warnings.end());
  CHECK(sorted(w) == sorted(whole.warnings));
  auto n = part.notes;
  n.insert(n.end(), r.notes.begin(), r.notes.end());
  CHECK(sorted(n) == sorted(whole.notes));
  REQUIRE(r.scan);
  CHECK(r.scan->root == done.ws.root);
  CHECK(r.scan->dirs == 42);
  CHECK(&part.deferred->finish() == &r);  // once
}

}  // namespace

TEST_CASE("deferred scan: the finished plan is the whole plan", "[sandbox][deferred]") {
  SECTION("workspace in the home dir") { check_same(scanned_host("/home/u/proj"), SandboxRequest{}); }
  SECTION("workspace under /tmp: the mirror alias") { check_same(scanned_host("/tmp/proj"), SandboxRequest{}); }
  SECTION("the user's own /tmp sockets, found with the scan") {
    check_same(with_user_sockets(scanned_host("/home/u/proj")), SandboxRequest{});
    check_same(with_user_sockets(scanned_host("/tmp/proj")), SandboxRequest{});
  }
  SECTION("no overlay at all: the pins of a host-writable ~/.config, planned before the protections") {
    // bwrap 0.8 and no overlay of blaude's own: ~/.config's login and app dirs are guards that
    // add_config() makes before the workspace's (plan_ipc.cpp add_config_fallback_pins).
    HostFacts done = scanned_host("/home/u/proj");
    done.overlay = false;
    done.ipc.own_overlay = false;
    put(done, "/home/u/.config", Kind::Dir);
    put(done, "/home/u/.config/nvim", Kind::Dir);
    put(done, "/home/u/.config/autostart", Kind::Missing);
    for (const std::string p : {"/home/u/.config", "/home/u/.config/nvim", "/home/u/.config/autostart"})
      done.ws.ids.emplace(p, Identity{1, std::hash<std::string>{}(p), 0040000});
    check_same(done, SandboxRequest{});
    // Not vacuous: the pins are there, in the finished plan too.
    LaunchPlan part = plan(SandboxRequest{}, pending_host(done), inputs());
    const auto& r = part.deferred->finish();
    auto at = [&](const std::string& p, InnerKind k) {
      return std::any_of(r.mounts.begin(), r.mounts.end(), [&](const InnerMount& m) { return m.path == p && m.kind == k; });
    };
    CHECK(at("/home/u/.config/autostart", InnerKind::EmptyDir));
    CHECK(at("/home/u/.config/nvim", InnerKind::ReadOnly));
  }
  SECTION("every opt-in and mode that plans something before the protections") {
    // Whatever plan() adds before add_protections must reach the finished layout the same way
    // (the case above was one that did not): each request on the usual host and on the
    // no-overlay one.
    for (bool overlay : {true, false}) {
      HostFacts done = scanned_host("/home/u/proj");
      done.overlay = overlay;
      done.ipc.own_overlay = overlay;
      for (const std::string p : {"/home/u/.config", "/home/u/.config/nvim", "/home/u/other", "/home/u/other/.git"}) {
        put(done, p, Kind::Dir);
        done.ws.ids.emplace(p, Identity{1, std::hash<std::string>{}(p), 0040000});
      }
      std::vector<SandboxRequest> reqs(9);
      reqs[1].git = true;
      reqs[2].ssh = true;
      reqs[3].aws = true;
      reqs[4].keyring = true;
      reqs[5].no_network = true;
      reqs[6].clear_tmp = true;
      reqs[7].mounts = {{"/home/u/other", true}};
      reqs[8].mounts = {{"/home/u/other", false}};
      for (size_t i = 0; i < reqs.size(); ++i) {
        INFO("overlay " << overlay << ", request " << i);
        check_same(done, reqs[i]);
      }
    }
  }
  SECTION("a deep nested repo is among the helper's mounts") {
    HostFacts done = scanned_host("/home/u/proj");
    HostFacts pf = pending_host(done);
    LaunchPlan part = plan(SandboxRequest{}, pf, inputs());
    const auto& r = part.deferred->finish();
    bool deep = false;
    for (const auto& m : r.mounts) deep |= m.path == "/home/u/proj/node_modules/x/y/z/deep/.git/config";
    CHECK(deep);
    // Control: the argv made while the scan ran names none of the scan's paths.
    for (const auto& a : part.argv) CHECK(a.find("deep") == std::string::npos);
  }
}

TEST_CASE("deferred scan: the user's /tmp sockets are shadowed by the finished plan", "[sandbox][deferred]") {
  HostFacts done = with_user_sockets(scanned_host("/home/u/proj"));
  LaunchPlan whole = plan(SandboxRequest{}, done, inputs());
  HostFacts pf = pending_host(done);
  LaunchPlan part = plan(SandboxRequest{}, pf, inputs());
  const auto& r = part.deferred->finish();
  auto has = [](const std::vector<InnerMount>& v, const std::string& p, InnerKind k) {
    return std::any_of(v.begin(), v.end(), [&](const InnerMount& m) { return m.path == p && m.kind == k; });
  };
  for (const std::vector<InnerMount>* mounts : {static_cast<const std::vector<InnerMount>*>(&whole.inner_mounts), &r.mounts}) {
    CHECK(has(*mounts, "/tmp/emacs1000", InnerKind::ShadowDir));
    CHECK(has(*mounts, "/tmp/nv/x/nvim.1.0", InnerKind::ShadowFile));
    CHECK(has(*mounts, "/tmp/solo/s.sock", InnerKind::ShadowFile));
    CHECK_FALSE(has(*mounts, "/tmp/emacs1000/server", InnerKind::ShadowFile));  // under its dir's tmpfs
  }
  CHECK(whole.inner_mounts.back().path == "/home/u/.claude/tmux-1000");  // after theirs: the order is checked
  // Control: plan() itself, with the sockets still being scanned, shadowed none of them.
  CHECK_FALSE(has(part.inner_mounts, "/tmp/solo/s.sock", InnerKind::ShadowFile));
  CHECK(std::find(r.warnings.begin(), r.warnings.end(), done.probe_warnings.back()) != r.warnings.end());
  // With --clear-tmp nothing in /tmp is shadowed (the sandbox has its own), late or not.
  SandboxRequest clear;
  clear.clear_tmp = true;
  LaunchPlan cleared = plan(clear, pending_host(done), inputs());
  const auto& rc = cleared.deferred->finish();
  CHECK_FALSE(has(rc.mounts, "/tmp/solo/s.sock", InnerKind::ShadowFile));
}

TEST_CASE("deferred scan: a layout that cannot be made fails the launch", "[sandbox][deferred]") {
  HostFacts done = scanned_host("/home/u/proj");
  HostFacts pf = pending_host(done);
  // The scan reports a protection whose identity it lacks: the whole plan throws PlanError here;
  // the deferred one says why in finish(), and the launcher fails the gate (nothing runs).
  WorkspaceScan scan = done.ws;
  scan.ids.erase("/home/u/proj/packages/a/.git/config");
  pf.ws_pending = std::make_shared<PendingScan>([scan] { return scan; });
  HostFacts whole_facts = done;
  whole_facts.ws = scan;
  CHECK_THROWS_AS(plan(SandboxRequest{}, whole_facts, inputs()), PlanError);
  LaunchPlan part = plan(SandboxRequest{}, pf, inputs());
  const auto& r = part.deferred->finish();
  CHECK(r.error.find("changed while blaude was starting") != std::string::npos);
  CHECK(r.mounts.empty());
  CHECK_FALSE(r.scan);
}

TEST_CASE("deferred scan: a scan that threw fails the launch", "[sandbox][deferred]") {
  HostFacts pf = pending_host(scanned_host("/home/u/proj"));
  pf.ws_pending = std::make_shared<PendingScan>([]() -> WorkspaceScan { throw std::runtime_error("no memory"); });
  LaunchPlan part = plan(SandboxRequest{}, pf, inputs());
  CHECK(part.deferred->finish().error == "the workspace scan failed: no memory");
}

TEST_CASE("deferred scan: without the helper the scan is waited for first", "[sandbox][deferred]") {
  HostFacts done = scanned_host("/home/u/proj");
  done.inner_mounts = false;
  HostFacts pf = pending_host(done);
  LaunchPlan part = plan(SandboxRequest{}, pf, inputs());
  CHECK_FALSE(part.deferred);
  CHECK(part.argv == plan(SandboxRequest{}, done, inputs()).argv);
}
