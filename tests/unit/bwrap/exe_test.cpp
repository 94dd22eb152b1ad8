// The program blaude runs, at its own path inside the sandbox: golden argv over synthetic
// hosts (npm prefix in $HOME, node_modules/.bin under /var, /usr/local, merged /usr, the native
// installer, nvm, link chains, refusals); the mount-table resolver behind it is mount_op_test.cpp's.
#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
using Argv = std::vector<std::string>;

namespace {


HostFacts host() { return typical_host(); }

// claude found by PATH at `found`, reached through `hops` (found first), installed at `real`.
void exe(HostFacts& f, const std::string& found, const std::string& real, const std::string& root,
         std::vector<ExeFact::Hop> hops = {}) {
  f.exe.name = "claude";
  f.exe.from_path = true;
  f.exe.found = found;
  f.exe.real = real;
  f.exe.package_root = root;
  f.exe.hops = hops.empty() && found != real ? std::vector<ExeFact::Hop>{{found, found}} : hops;
}

PlanInputs inputs(Argv cmd = {"claude", "--dangerously-skip-permissions"}) {
  PlanInputs in;
  in.env = {{"HOME", "/home/u"}};
  in.command = std::move(cmd);
  return in;
}

std::string first_path_dir(const HostFacts& f) {
  std::string p = sandbox_path(f);
  return p.substr(0, p.find(':'));
}

const std::string kPkg = "/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code";

}  // namespace

TEST_CASE("exe: an npm prefix in $HOME: the package read-only, the bin link recreated, its dir first on PATH",
          "[sandbox][exe]") {
  HostFacts f = host();
  exe(f, "/home/u/.npm-global/bin/claude", kPkg + "/bin/claude.exe", kPkg);
  auto a = plan(SandboxRequest{}, f, inputs()).argv;
  long bind = find(a, {"--ro-bind", kPkg, kPkg});
  long link = find(a, {"--symlink", kPkg + "/bin/claude.exe", "/home/u/.npm-global/bin/claude"});
  REQUIRE(bind >= 0);
  REQUIRE(link >= 0);
  // After the $HOME tmpfs (or it would be hidden), before the command.
  CHECK(bind > find(a, {"--tmpfs", "/home/u"}));
  CHECK(link < find(a, {"--", "claude"}));
  // Never the prefix, lib/ or node_modules themselves: only claude's package.
  CHECK_FALSE(has(a, {"--ro-bind", "/home/u/.npm-global", "/home/u/.npm-global"}));
  CHECK_FALSE(has(a, {"--ro-bind", "/home/u/.npm-global/lib/node_modules", "/home/u/.npm-global/lib/node_modules"}));
  CHECK(first_path_dir(f) == "/home/u/.npm-global/bin");
  // The command keeps its text: `claude` is resolved by the sandbox PATH.
  CHECK(a[size_t(find(a, {"--"})) + 1] == "claude");
}

TEST_CASE("exe: node_modules/.bin under /var (a tmpfs inside), as the test install lays it out", "[sandbox][exe]") {
  HostFacts f = host();
  const std::string nm = "/var/cache/blaude-test/claude/node_modules";
  exe(f, nm + "/.bin/claude", nm + "/@anthropic-ai/claude-code/bin/claude.exe", nm + "/@anthropic-ai/claude-code");
  auto a = plan(SandboxRequest{}, f, inputs()).argv;
  long bind = find(a, {"--ro-bind", nm + "/@anthropic-ai/claude-code", nm + "/@anthropic-ai/claude-code"});
  REQUIRE(bind >= 0);
  CHECK(bind > find(a, {"--tmpfs", "/var"}));
  CHECK(has(a, {"--symlink", nm + "/@anthropic-ai/claude-code/bin/claude.exe", nm + "/.bin/claude"}));
  CHECK(first_path_dir(f) == nm + "/.bin");
}

TEST_CASE("exe: already visible at its own path: no extra mount, PATH order unchanged", "[sandbox][exe]") {
  HostFacts f = host();
  SECTION("global npm under /usr/local") {
    const std::string pkg = "/usr/local/lib/node_modules/@anthropic-ai/claude-code";
    exe(f, "/usr/local/bin/claude", pkg + "/bin/claude.exe", pkg);
  }
  SECTION("merged /usr: /bin/claude is /usr/bin/claude") {
    exe(f, "/bin/claude", "/usr/bin/claude", "", {{"/bin/claude", "/usr/bin/claude"}});
  }
  SECTION("the native installer: ~/.local/bin/claude → ~/.local/share/claude/versions/X") {
    put(f, "/home/u/.local/bin", Kind::Dir);
    f.paths["/home/u/.local/bin/claude"] =
        PathFact{Kind::Symlink, Kind::File, "/home/u/.local/share/claude/versions/2.1.0", "../share/claude/versions/2.1.0"};
    put(f, "/home/u/.local/share/claude", Kind::Dir);
    exe(f, "/home/u/.local/bin/claude", "/home/u/.local/share/claude/versions/2.1.0", "");
  }
  SECTION("nvm's node: the package lives in the nvm tree plan() mounts") {
    put(f, "/home/u/.nvm", Kind::Dir);
    f.nvm_node_bin = "/home/u/.nvm/versions/node/v22.1.0/bin";
    const std::string pkg = "/home/u/.nvm/versions/node/v22.1.0/lib/node_modules/@anthropic-ai/claude-code";
    exe(f, f.nvm_node_bin + "/claude", pkg + "/cli.js", pkg);
  }
  SECTION("a workspace-independent file under the shared /tmp") {
    exe(f, "/tmp/tools/claude", "/tmp/tools/claude", "");
  }
  // The same host planning another command is the baseline (add_exe skips a mismatch).
  const Argv base = plan(SandboxRequest{}, f, inputs({"other"})).argv;
  auto a = plan(SandboxRequest{}, f, inputs()).argv;
  CHECK(count(a, "--symlink") == count(base, "--symlink"));
  CHECK(count(a, "--ro-bind") == count(base, "--ro-bind"));
  HostFacts without = f;
  without.exe = {};
  if (f.exe.found != "/tmp/tools/claude") CHECK(sandbox_path(f) == sandbox_path(without));
}

TEST_CASE("exe: a chain of links, each hidden hop recreated straight at the real file", "[sandbox][exe]") {
  HostFacts f = host();
  // /opt/tools/bin/claude → /home/u/.npm-global/bin/claude → ../lib/.../bin/claude.exe
  exe(f, "/opt/tools/bin/claude", kPkg + "/bin/claude.exe", kPkg,
      {{"/opt/tools/bin/claude", "/opt/tools/bin/claude"}, {"/home/u/.npm-global/bin/claude", "/home/u/.npm-global/bin/claude"}});
  auto a = plan(SandboxRequest{}, f, inputs()).argv;
  CHECK(has(a, {"--ro-bind", kPkg, kPkg}));
  CHECK(has(a, {"--symlink", kPkg + "/bin/claude.exe", "/opt/tools/bin/claude"}));
  CHECK(has(a, {"--symlink", kPkg + "/bin/claude.exe", "/home/u/.npm-global/bin/claude"}));
  CHECK(first_path_dir(f) == "/opt/tools/bin");
}

TEST_CASE("exe: a program that is no npm package: the file alone", "[sandbox][exe]") {
  HostFacts f = host();
  exe(f, "/home/u/bin/claude", "/srv/claude/claude-bin", "");
  auto a = plan(SandboxRequest{}, f, inputs()).argv;
  CHECK(has(a, {"--ro-bind", "/srv/claude/claude-bin", "/srv/claude/claude-bin"}));
  CHECK_FALSE(has(a, {"--ro-bind", "/srv/claude", "/srv/claude"}));
  CHECK(has(a, {"--symlink", "/srv/claude/claude-bin", "/home/u/bin/claude"}));
}

TEST_CASE("exe: --exec with an absolute path is bound, PATH untouched; a mismatching command is left alone",
          "[sandbox][exe]") {
  HostFacts f = host();
  const std::string before = sandbox_path(f);
  f.exe = ExeFact{"/srv/tools/mytool", false, "/srv/tools/mytool", {}, "/srv/tools/mytool", ""};
  auto a = plan(SandboxRequest{}, f, inputs({"/srv/tools/mytool", "--flag"})).argv;
  CHECK(has(a, {"--ro-bind", "/srv/tools/mytool", "/srv/tools/mytool"}));
  CHECK(sandbox_path(f) == before);
  // The facts describe another program than the one that runs: nothing is mounted for it.
  auto b = plan(SandboxRequest{}, f, inputs({"claude"})).argv;
  CHECK_FALSE(has(b, {"--ro-bind", "/srv/tools/mytool", "/srv/tools/mytool"}));
}

TEST_CASE("exe: claude is reachable beside another program (--exec bash), after it on PATH", "[sandbox][exe]") {
  HostFacts f = host();
  exe(f, "/home/u/.npm-global/bin/claude", kPkg + "/bin/claude.exe", kPkg);  // fills f.exe
  f.claude = f.exe;
  f.exe = ExeFact{"mytool", true, "/srv/bin/mytool", {}, "/srv/bin/mytool", ""};
  auto a = plan(SandboxRequest{}, f, inputs({"mytool"})).argv;
  CHECK(has(a, {"--ro-bind", "/srv/bin/mytool", "/srv/bin/mytool"}));
  CHECK(has(a, {"--ro-bind", kPkg, kPkg}));
  CHECK(has(a, {"--symlink", kPkg + "/bin/claude.exe", "/home/u/.npm-global/bin/claude"}));
  CHECK(sandbox_path(f).rfind("/srv/bin:/home/u/.npm-global/bin:", 0) == 0);

  // A claude whose install is too broad to expose only warns: the program itself still runs.
  f.claude.found = f.claude.real = "/home/u/.ssh/claude";
  f.claude.hops.clear();
  f.claude.package_root.clear();
  auto p = plan(SandboxRequest{}, f, inputs({"mytool"}));
  CHECK_FALSE(has(p.argv, {"--ro-bind", "/home/u/.ssh/claude", "/home/u/.ssh/claude"}));
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("refusing to mount /home/u/.ssh/claude") != std::string::npos);
  CHECK(p.warnings[0].find("claude is not available inside") != std::string::npos);
}

TEST_CASE("exe: refuses what would expose $HOME or a secrets dir", "[sandbox][exe]") {
  HostFacts f = host();
  SECTION("found inside ~/.ssh") {
    exe(f, "/home/u/.ssh/bin/claude", "/home/u/.ssh/bin/claude", "");
  }
  SECTION("a package root that would contain ~/.aws") {
    exe(f, "/home/u/bin/claude", "/home/u/bin/claude", "/home/u/.aws/..");
    f.exe.package_root = "/home/u/.aws";
  }
  SECTION("a package root at $HOME's parent") {
    exe(f, "/home/u/bin/claude", "/opt/x/claude", "/home");
  }
  SECTION("through a symlinked $HOME's real path") {
    f.home_real = "/data/u";
    exe(f, "/home/u/bin/claude", "/data/u/.gnupg/claude", "");
  }
  try {
    plan(SandboxRequest{}, f, inputs());
    FAIL("plan() accepted it");
  } catch (const PlanError& e) {
    CHECK(std::string(e.what()).find("refusing to mount") != std::string::npos);
    CHECK(e.hint.find("Install claude elsewhere") != std::string::npos);
  }
}

TEST_CASE("exe: control for the refusals: the same layout outside the secrets dir is mounted", "[sandbox][exe]") {
  HostFacts f = host();
  exe(f, "/home/u/bin/claude", "/home/u/bin/claude", "");
  auto a = plan(SandboxRequest{}, f, inputs()).argv;
  CHECK(has(a, {"--ro-bind", "/home/u/bin/claude", "/home/u/bin/claude"}));
}

TEST_CASE("exe: a PATH dir with ':' is never put into PATH", "[sandbox][exe]") {
  HostFacts f = host();
  const std::string before = sandbox_path(f);
  exe(f, "/srv/a:b/claude", "/srv/a:b/claude", "");
  CHECK(sandbox_path(f) == before);
}
