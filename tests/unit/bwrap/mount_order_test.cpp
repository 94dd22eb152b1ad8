// The mount-order invariant: no mount or protection in a bwrap argv is hidden by a later mount
// on the same path or an ancestor. The checker itself, then plan() over a generated matrix of
// synthetic hosts and options (plan() also enforces it, so every other sandbox test that builds
// a plan checks it too).
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"
#include "bwrap/mount_order_check.hpp"
#include "bwrap/plan_matrix.hpp"
#include "sandbox/bwrap/plan/plan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
using Argv = std::vector<std::string>;

namespace {

// The shadowed steps of a hand-written bwrap argv: its options (after the program, up to "--")
// read as ops.
std::vector<Shadowing> shadowed_mounts(const Argv& argv) {
  auto end = std::find(argv.begin() + 1, argv.end(), "--");
  return blaude::sandbox::bwrap::shadowed_mounts(steps_of(ops_from_words(Argv(argv.begin() + 1, end))));
}

}  // namespace

using namespace blaude::testing::matrix;

TEST_CASE("mount order checker: a later ancestor mount hides an earlier one", "[sandbox][mount-order]") {
  // The bug found by reading: nvm bound read-only, then ~/.config bound writable over it.
  Argv bad = {"bwrap", "--tmpfs", "/home/u", "--ro-bind", "/home/u/.config/nvm", "/home/u/.config/nvm",
              "--bind", "/home/u/.config", "/home/u/.config", "--", "sh"};
  auto s = shadowed_mounts(bad);
  REQUIRE(s.size() == 1);
  CHECK(s[0].hidden.op == "--ro-bind");
  CHECK(s[0].hidden.dst == "/home/u/.config/nvm");
  CHECK(s[0].by.op == "--bind");
  CHECK(s[0].by.dst == "/home/u/.config");
  CHECK(describe(s[0]).find("/home/u/.config/nvm") != std::string::npos);
  // Control: the same mounts, parent first, are fine.
  Argv good = {"bwrap", "--tmpfs", "/home/u", "--bind", "/home/u/.config", "/home/u/.config",
               "--ro-bind", "/home/u/.config/nvm", "/home/u/.config/nvm", "--", "sh"};
  CHECK(shadowed_mounts(good).empty());

  SECTION("a remount-ro pin and a tmp-overlay are hidden the same way") {
    Argv a = {"bwrap", "--tmpfs", "/h/.config/git", "--remount-ro", "/h/.config/git", "--overlay-src", "/h/.x",
              "--tmp-overlay", "/h/.x/y", "--bind", "/h", "/h", "--", "sh"};
    auto v = shadowed_mounts(a);
    REQUIRE(v.size() == 3);
    CHECK(v[1].hidden.op == "--remount-ro");
    CHECK(v[2].hidden.op == "--tmp-overlay");
  }
  SECTION("the same destination mounted twice: the second replaces the first") {
    CHECK(shadowed_mounts({"bwrap", "--ro-bind", "/a", "/a", "--bind", "/a", "/a", "--"}).size() == 1);
  }
  SECTION("--dir, --remount-ro and --symlink hide nothing; arguments after -- are ignored") {
    CHECK(shadowed_mounts({"bwrap", "--tmpfs", "/a/b", "--dir", "/a", "--remount-ro", "/a", "--symlink", "x", "/a",
                           "--", "--bind", "/", "/"})
              .empty());
    // Option values are not mistaken for options: a --setenv value that reads "--bind".
    CHECK(shadowed_mounts({"bwrap", "--ro-bind", "/a/b", "/a/b", "--setenv", "X", "--bind", "--"}).empty());
  }
  SECTION("sibling prefixes are not ancestors") {
    CHECK(shadowed_mounts({"bwrap", "--ro-bind", "/ab", "/ab", "--bind", "/a", "/a", "--"}).empty());
  }
}

TEST_CASE("mount order holds for every host variant and option combination", "[sandbox][mount-order]") {
  int plans = 0;
  for (const std::string& home : {std::string("/home/u"), std::string("/tmp/h/u")}) {
    for (const std::string& cwd : {home + "/proj", std::string("/tmp/work/proj"), std::string("/srv/code/proj")}) {
      for (const auto& [vname, variant] : variants()) {
        for (bool overlay : {true, false}) {
          for (const auto& c : combos()) {
            HostFacts f = rich_host(home, cwd);
            f.overlay = overlay;
            variant(f);
            SandboxRequest o;
            c.set(o);
            PlanInputs in;
            in.command = {"claude"};
            INFO("HOME " << home << ", workspace " << cwd << ", " << vname << ", overlay " << overlay << ", "
                         << c.name);
            try {
              auto p = plan(o, f, in);
              check_mount_order(p);
              ++plans;
            } catch (const PlanError& e) {
              FAIL_CHECK(e.what());
            }
          }
        }
      }
    }
  }
  CHECK(plans == 2 * 3 * int(variants().size()) * 2 * int(combos().size()));
}

TEST_CASE("mount order checker: a later bind showing the same host path is no shadow", "[sandbox][mount-order]") {
  // -m /opt/vendor over the read-only /opt/vendor/bin: the same files, read-only either way.
  CHECK(shadowed_mounts({"bwrap", "--ro-bind", "/opt/v/bin", "/opt/v/bin", "--ro-bind", "/opt/v", "/opt/v", "--"}).empty());
  CHECK(shadowed_mounts({"bwrap", "--bind", "/d/x", "/d/x", "--bind", "/d", "/d", "--"}).empty());
  // Controls: more access, or another host path, is a shadow.
  CHECK(shadowed_mounts({"bwrap", "--ro-bind", "/opt/v/bin", "/opt/v/bin", "--bind", "/opt/v", "/opt/v", "--"}).size() == 1);
  CHECK(shadowed_mounts({"bwrap", "--bind", "/d/x", "/d/x", "--ro-bind", "/d", "/d", "--"}).size() == 1);
  CHECK(shadowed_mounts({"bwrap", "--ro-bind", "/e/bin", "/opt/host-bin", "--ro-bind", "/opt", "/opt", "--"}).size() == 1);
}

TEST_CASE("plan() fails closed when a -m mount would hide a protection", "[sandbox][mount-order]") {
  HostFacts f = rich_host("/home/u", "/srv/code/proj");
  f.overlay = false;
  put(f, "/home/u/.config/git", Kind::Dir);
  PlanInputs in;
  in.command = {"claude"};
  SandboxRequest o;
  o.mounts = {{"/home/u/.config", true}};
  f.mount_paths = {"/home/u/.config"};
  f.mounts = {f.at("/home/u/.config")};
  try {
    plan(o, f, in);
    FAIL("plan() accepted -m ~/.config:rw over the read-only ~/.config/git");
  } catch (const PlanError& e) {
    CHECK(std::string(e.what()).find("/home/u/.config/git") != std::string::npos);
    CHECK_FALSE(e.hint.empty());
  }
  // Control: under --allow-protected-writes there is no pin to hide: the user's choice.
  o.allow_protected_writes = true;
  CHECK_NOTHROW(plan(o, f, in));
  // A -m over a read-only /opt tool dir with write access is a shadow too; under
  // --allow-protected-writes it is only warned about.
  put(f, "/opt/vendor", Kind::Dir);
  o.mounts = {{"/opt/vendor", true}};
  f.mount_paths = {"/opt/vendor"};
  f.mounts = {f.at("/opt/vendor")};
  SandboxRequest strict;
  strict.mounts = o.mounts;
  CHECK_THROWS_AS(plan(strict, f, in), PlanError);
  auto p = plan(o, f, in);
  bool warned = false;
  for (const auto& w : p.warnings) warned = warned || w.find("hides the earlier --ro-bind /opt/vendor/bin") != std::string::npos;
  CHECK(warned);
  // And a -m that shows the same files, read-only, passes.
  o = {};
  o.mounts = {{"/opt/vendor", false}};
  CHECK_NOTHROW(plan(o, f, in));
}

TEST_CASE("mounts whose destination shows as a symlink land on the link's target", "[sandbox][symlink]") {
  auto has = [](const Argv& a, const Argv& seq) { return std::search(a.begin(), a.end(), seq.begin(), seq.end()) != a.end(); };
  auto mentions = [](const Argv& a, const std::string& s) { return std::find(a.begin(), a.end(), s) != a.end(); };
  auto any_of = [](const std::vector<std::string>& v, const std::string& s) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
  };
  PlanInputs in;
  in.command = {"claude"};
  for (bool overlay : {true, false}) {
    INFO("overlay " << overlay);
    HostFacts f = rich_host("/home/u", "/srv/code/proj");
    f.overlay = overlay;
    // A dotfile manager's links inside ~/.config, which is a host mount (overlay or bind).
    f.env["CLAUDE_CONFIG_DIR"] = "/home/u/.config/claude";
    put_link(f, "/home/u/.config/claude", "../dots/claude", "/home/u/dots/claude", Kind::Dir);
    f.nvm_dir = "/home/u/.config/nvm";
    put_link(f, f.nvm_dir, "/srv/nvm", "/srv/nvm", Kind::Dir);
    auto p = plan(SandboxRequest{}, f, in);
    check_mount_order(p);
    CHECK(has(p.argv, {"--bind", "/home/u/dots/claude", "/home/u/dots/claude"}));
    CHECK_FALSE(mentions(p.argv, "/home/u/.config/claude"));
    CHECK_FALSE(mentions(p.argv, "/home/u/.config/nvm"));
    if (overlay) {
      CHECK(has(p.argv, {"--overlay-src", "/srv/nvm", "--tmp-overlay", "/srv/nvm"}));
    } else {
      CHECK(has(p.argv, {"--ro-bind", "/srv/nvm", "/srv/nvm"}));
    }
    CHECK(any_of(p.notes, "/home/u/.config/claude is a symlink to /home/u/dots/claude"));

    SECTION("a dangling link or one to $HOME is not mounted, with a warning") {
      put_link(f, "/home/u/.config/claude", "../gone", "", Kind::Missing);
      put_link(f, f.nvm_dir, "..", "/home/u", Kind::Dir);
      auto q = plan(SandboxRequest{}, f, in);
      CHECK_FALSE(mentions(q.argv, "/home/u/.config/claude"));
      CHECK(any_of(q.warnings, "/home/u/.config/claude does not exist"));
      CHECK(any_of(q.warnings, "/home/u/.config/nvm is a symlink to your home directory"));
      CHECK_FALSE(has(q.argv, {"--ro-bind", "/home/u", "/home/u"}));
    }
  }
  SECTION("control: a link on bwrap's tmpfs $HOME is mounted at its own path (bwrap makes the mount point)") {
    HostFacts f = rich_host("/home/u", "/srv/code/proj");
    put_link(f, "/home/u/.claude", "dots/claude", "/home/u/dots/claude", Kind::Dir);
    auto p = plan(SandboxRequest{}, f, in);
    CHECK(has(p.argv, {"--bind", "/home/u/.claude", "/home/u/.claude"}));
  }
}
