// Claude Code's programs in its writable dirs: ~/.claude/hooks and the scripts the
// settings name are guards of the protect layout; ~/.claude/plugins is a write-discarding
// overlay (read-only without one). Controls: --allow-protected-writes leaves them writable; a
// script outside every writable dir gets no mount.
#include <functional>

#include "catch.hpp"
#include "fake_host.hpp"
#include "common/claude_keys.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/probe/scan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;

namespace {

const std::string kC = "/home/u/.claude";

HostFacts claude_host(bool overlay) {
  HostFacts f = typical_host();
  f.overlay = overlay;
  f.ipc.own_overlay = false;
  f.inner_mounts = true;
  put(f, kC + "/hooks", Kind::Dir);
  put(f, kC + "/plugins", Kind::Dir);
  put(f, kC + "/local", Kind::Dir);
  f.claude_scripts = {kC + "/statusline.sh", kC + "/hooks/inside.sh", "/home/u/proj/.claude/hooks/fmt.sh",
                      "/usr/local/bin/outside"};
  for (const std::string& p : {kC + "/hooks", kC + "/local", kC + "/statusline.sh", kC + "/hooks/inside.sh",
                               std::string("/home/u/proj/.claude/hooks/fmt.sh"), std::string("/home/u/proj/.claude/hooks"),
                               std::string("/home/u/proj")})
    identify(f.ws.ids, p);
  for (auto& [p, id] : f.ws.ids) id = Identity{1, std::hash<std::string>{}(p), p.ends_with(".sh") ? 0100000u : 0040000u};
  return f;
}

}  // namespace

TEST_CASE("claude guards: hooks dir and named scripts read-only, plugins an overlay", "[sandbox][escapes][claude]") {
  const auto p = plan_of(claude_host(true));
  REQUIRE(mount_at(p, kC + "/hooks"));
  CHECK(mount_at(p, kC + "/hooks")->kind == InnerKind::ReadOnly);
  REQUIRE(mount_at(p, kC + "/statusline.sh"));
  CHECK(mount_at(p, kC + "/statusline.sh")->kind == InnerKind::ReadOnly);
  REQUIRE(mount_at(p, kC + "/local"));  // a local install of claude itself
  CHECK(mount_at(p, kC + "/local")->kind == InnerKind::ReadOnly);
  CHECK_FALSE(mount_at(p, kC + "/hooks/inside.sh"));  // inside the read-only hooks dir already
  // The project's hook script's directory (modules beside it are code too), at the workspace's
  // own bind (at its host path); the script is inside it.
  REQUIRE(mount_at(p, "/home/u/proj/.claude/hooks"));
  CHECK(mount_at(p, "/home/u/proj/.claude/hooks")->kind == InnerKind::ReadOnly);
  CHECK_FALSE(mount_at(p, "/usr/local/bin/outside"));  // not writable from inside: nothing to do
  CHECK(has(p.argv, {"--overlay-src", kC + "/plugins", "--tmp-overlay", kC + "/plugins"}));
  // Under --tmp (no workspace) ~/.claude is still writable: its guards stay.
  SandboxRequest tmp;
  tmp.tmp = true;
  auto ptmp = plan_of(claude_host(true), tmp);
  CHECK(mount_at(ptmp, kC + "/hooks"));
}

TEST_CASE("claude guards: what claude reads at start is protected present or not", "[sandbox][escapes][claude]") {
  auto f = claude_host(true);
  identify(f.ws.ids, kC);
  f.ws.ids[kC] = Identity{1, 7, 0040000u};
  put(f, kC + "/CLAUDE.md", Kind::File);
  identify(f.ws.ids, kC + "/CLAUDE.md");
  f.ws.ids[kC + "/CLAUDE.md"] = Identity{1, 8, 0100000u};
  const auto p = plan_of(f);
  // Missing dirs: an empty read-only dir each, made by the helper at the config dir it pins.
  for (const char* d : {"/commands", "/skills", "/agents", "/workflows", "/routines", "/rules", "/output-styles"}) {
    INFO(d);
    REQUIRE(mount_at(p, kC + d));
    CHECK(mount_at(p, kC + d)->kind == InnerKind::EmptyDir);
  }
  // A file that exists: read-only (a missing one is the audit's).
  REQUIRE(mount_at(p, kC + "/CLAUDE.md"));
  CHECK(mount_at(p, kC + "/CLAUDE.md")->kind == InnerKind::ReadOnly);
  CHECK_FALSE(mount_at(p, kC + "/scheduled_tasks.json"));
  // A script in the config dir itself: the dir stays writable (claude's state is there), said.
  CHECK_FALSE(mount_at(p, kC));
  bool said = false;
  for (const auto& n : p.notes) said |= n.find(kC + "/statusline.sh: its directory stays writable") == 0;
  CHECK(said);
  // The plugin store, when missing, is a writable tmpfs (claude creates it at start).
  auto g = claude_host(true);
  g.paths.erase(kC + "/plugins");
  CHECK(has(plan_of(g).argv, {"--tmpfs", kC + "/plugins"}));
}

TEST_CASE("claude guards: without overlays the plugins dir is read-only", "[sandbox][escapes][claude]") {
  const auto p = plan_of(claude_host(false));
  CHECK(has(p.argv, {"--ro-bind", kC + "/plugins", kC + "/plugins"}));
  CHECK_FALSE(mentions(p.argv, "--tmp-overlay"));
}

TEST_CASE("claude guards: control, --allow-protected-writes leaves them writable", "[sandbox][escapes][claude]") {
  SandboxRequest req;
  req.allow_protected_writes = true;
  const auto p = plan_of(claude_host(true), req);
  CHECK_FALSE(mount_at(p, kC + "/hooks"));
  CHECK_FALSE(mount_at(p, kC + "/statusline.sh"));
  CHECK_FALSE(mentions(p.argv, kC + "/plugins"));
}

TEST_CASE("claude settings scripts: the programs of a settings text", "[sandbox][claude]") {
  auto s = claude_settings_scripts(R"({"statusLine": {"command": "~/.claude/s.sh"},
    "hooks": {"Stop": [{"hooks": [{"command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh arg"}]}]}})",
                                   "/home/u", "/w");
  CHECK(s == std::vector<std::string>{"/w/.claude/hooks/x.sh", "/home/u/.claude/s.sh"});
  CHECK(claude_settings_scripts("{not json", "/home/u", "/w").empty());
  CHECK(claude_settings_files("/c", "") == std::vector<std::string>{"/c/settings.json"});
}
