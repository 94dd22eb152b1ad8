// The planner's ops (mount_op.hpp): each plan's argv is the ops rendered, word for word; the
// steps the passes read from the ops are the ones the argv spells; an op the helper makes is in
// the planner's table and out of bwrap's argv; and the source query follows binds, links and
// covers as bwrap applies them.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "bwrap/plan_matrix.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/mount_op.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"
#include "sandbox/bwrap/plan/plan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
using namespace blaude::testing::matrix;

namespace {

// The options of an argv: after the program, up to "--".
Argv options_of(const Argv& argv) {
  auto end = std::find(argv.begin(), argv.end(), "--");
  return Argv(argv.begin() + 1, end);
}

void check_steps(const std::vector<MountStep>& got, const std::vector<MountStep>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("step " << i << ": " << want[i].op << " " << want[i].dst);
    CHECK(got[i].op == want[i].op);
    CHECK(got[i].dst == want[i].dst);
    CHECK(got[i].src == want[i].src);
    CHECK(got[i].index == want[i].index);
  }
}

}  // namespace

TEST_CASE("mount ops: every plan's options read back as ops render to the same words", "[sandbox][mount-op]") {
  PlanInputs in;
  in.command = {"claude"};
  int plans = 0;
  for (bool helper : {true, false})
    for (const std::string& cwd : {std::string("/home/u/proj"), std::string("/tmp/work/proj")})
      for (const auto& [vname, variant] : variants())
        for (const auto& c : combos()) {
          HostFacts f = rich_host("/home/u", cwd);
          f.inner_mounts = helper;
          f.self_exe = "/usr/libexec/blaude/blaude";
          put(f, f.self_exe, Kind::File);
          variant(f);
          SandboxRequest o;
          c.set(o);
          INFO(cwd << ", " << vname << ", " << c.name << ", helper " << helper);
          LaunchPlan p;
          try {
            p = plan(o, f, in);
          } catch (const PlanError&) {
            continue;  // (a helper layout without identities: nothing to read back)
          }
          const Argv words = options_of(p.argv);
          const Ops ops = ops_from_words(words);
          CHECK(render(ops) == words);
          // The planner's own ops, as bwrap gets them (the helper's binds are not in the argv).
          REQUIRE(p.ops);
          check_steps(steps_of(ops), steps_of(*p.ops, 1, false));
          CHECK(shadowed_mounts(steps_of(ops)).size() == shadowed_mounts(steps_of(*p.ops, 1, false)).size());
          ++plans;
        }
  CHECK(plans > 100);
}

TEST_CASE("mount ops: values are no options, and what the planner never makes is refused", "[sandbox][mount-op]") {
  const Ops ops = ops_from_words({"--setenv", "X", "--bind", "--perms", "0700", "--dir", "/a", "--overlay-src", "/s",
                                  "--tmp-overlay", "/t", "--unshare-net"});
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].kind == OpKind::Option);
  CHECK(ops[0].words == Argv{"--setenv", "X", "--bind"});
  CHECK(ops[1].kind == OpKind::Dir);
  CHECK(ops[1].perms == "0700");
  CHECK(ops[2].kind == OpKind::Overlay);
  CHECK(ops[2].source == "/s");
  CHECK(ops[2].dest == "/t");
  CHECK(ops[3].words == Argv{"--unshare-net"});
  CHECK(steps_of(ops).size() == 1);  // the overlay: a Dir and options are no steps
  CHECK(steps_of(ops)[0].index == 1 + 3 + 4 + 2);
  CHECK_THROWS_AS(ops_from_words({"--ro-overlay", "/x"}), std::invalid_argument);
  CHECK_THROWS_AS(ops_from_words({"--bind", "/x"}), std::invalid_argument);
}

TEST_CASE("mount ops: an op the helper makes is in the planner's table, not in bwrap's argv", "[sandbox][mount-op]") {
  Ops ops = {mount_op(OpKind::Tmpfs, "", "/home/u"), mount_op(OpKind::Bind, "/home/u/.claude", "/home/u/.claude"),
             mount_op(OpKind::RoBind, "/usr", "/usr")};
  ops[1].helper = InnerMount{"/home/u/.claude", InnerKind::Bind, {}, "/home/u/.claude", "bwrap's --bind", ""};
  CHECK(render(ops) == Argv{"--tmpfs", "/home/u", "--ro-bind", "/usr", "/usr"});
  const auto planned = steps_of(ops);
  REQUIRE(planned.size() == 3);
  CHECK(planned[2].index == 6);  // after the lifted bind's three words
  CHECK(planned[2].at == 2);
  const auto bwraps = steps_of(ops, 1, /*count_helper=*/false);
  REQUIRE(bwraps.size() == 2);
  CHECK(bwraps[1].index == 3);
  CHECK(source_at(ops, "/home/u/.claude/x") == "/home/u/.claude/x");
}

TEST_CASE("source_at: what a sandbox path shows under the ops", "[sandbox][mount-op]") {
  const Argv a = {"--unshare-user", "--uid", "1000", "--ro-bind", "/usr", "/usr",
                  "--symlink", "usr/bin", "/bin", "--tmpfs", "/var", "--bind", "/tmp", "/tmp",
                  "--tmpfs", "/home/u", "--dir", "/home/u/.local/bin",
                  "--ro-bind", "/home/u/.local/bin", "/opt/host-bin",
                  "--overlay-src", "/home/u/.nvm", "--tmp-overlay", "/home/u/.nvm",
                  "--bind", "/home/u/.claude", "/home/u/.claude", "--tmpfs", "/tmp/.X11-unix",
                  "--ro-bind-data", "7", "/run/resolv.conf", "--setenv", "PATH", "/x"};
  const Ops ops = ops_from_words(a);
  CHECK(source_at(ops, "/usr/bin/node") == "/usr/bin/node");
  CHECK(source_at(ops, "/bin/sh") == "/usr/bin/sh");
  CHECK(source_at(ops, "/var/cache/x") == "");
  CHECK(source_at(ops, "/tmp/t/claude") == "/tmp/t/claude");
  CHECK(source_at(ops, "/tmp/.X11-unix/X0") == "");  // a later tmpfs covers the bind
  CHECK(source_at(ops, "/home/u/.local/bin/claude") == "");  // --dir makes no source
  CHECK(source_at(ops, "/opt/host-bin/claude") == "/home/u/.local/bin/claude");
  CHECK(source_at(ops, "/home/u/.nvm/versions/x") == "/home/u/.nvm/versions/x");
  CHECK(source_at(ops, "/home/u/.claude/../.claude/f") == "/home/u/.claude/f");
  CHECK(source_at(ops, "/run/resolv.conf") == "");
  CHECK(source_at(ops, "/opt/x") == "");  // bwrap's empty root
  CHECK(source_at(ops, "/PATH") == "");   // --setenv values are no mounts
  const auto table = source_table(ops);
  CHECK(table("/bin/sh") == "/usr/bin/sh");
  CHECK(table("/tmp/.X11-unix/X0") == "");
}
