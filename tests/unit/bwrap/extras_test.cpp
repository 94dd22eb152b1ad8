// Mount rules for what other programs configured on the host: fnm/pnpm/corepack, packages
// linked into node tools (MCP token files), paths in claude's env vars, managed settings, and
// the runnable --dry-run form of data fds. Planner over synthetic hosts; probes over temp trees.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "app/launch.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/format.hpp"
#include "sandbox/bwrap/probe/env_binds.hpp"
#include "sandbox/bwrap/probe/host_tools.hpp"
#include "sandbox/bwrap/probe/managed_paths.hpp"
#include "sandbox/bwrap/plan/plan.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
using Argv = std::vector<std::string>;
namespace fs = std::filesystem;

namespace {


HostFacts host() { return typical_host(); }

LaunchPlan run(const HostFacts& f, SandboxRequest o = {}) {
  PlanInputs in;
  in.command = {"claude"};
  return plan(o, f, in);
}

bool warned(const LaunchPlan& p, const std::string& part) {
  return std::any_of(p.warnings.begin(), p.warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "blaude-extras.XXXXXX").string();
    path = fs::canonical(::mkdtemp(tmpl.data()));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& rel) const { return (path / rel).string(); }
  void file(const std::string& rel, const std::string& text = "{}") {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << text;
  }
  void link(const std::string& rel, const std::string& target) {
    fs::create_directories((path / rel).parent_path());
    fs::create_symlink(target, path / rel);
  }
};

}  // namespace

TEST_CASE("fnm, pnpm and corepack dirs: overlays, or read-only without overlay support", "[sandbox]") {
  for (bool overlay : {true, false}) {
    auto f = host();
    f.overlay = overlay;
    for (const auto& d : {f.fnm_dir, f.pnpm_home, f.corepack_home}) put(f, d, Kind::Dir);
    auto a = run(f).argv;
    for (const auto& d : {f.fnm_dir, f.pnpm_home, f.corepack_home}) {
      if (overlay) {
        CHECK(has(a, {"--overlay-src", d, "--tmp-overlay", d}));
      } else {
        CHECK(has(a, {"--ro-bind", d, d}));
        CHECK_FALSE(has(a, {"--bind", d, d}));
      }
    }
    CHECK(find(a, {"--tmpfs", "/home/u"}) < find(a, {overlay ? "--overlay-src" : "--ro-bind", f.fnm_dir}));
  }
  auto f = host();  // absent: nothing
  auto a = run(f).argv;
  CHECK_FALSE(mentions(a, f.fnm_dir));
  CHECK_FALSE(mentions(a, f.corepack_home));
}

TEST_CASE("sandbox PATH with fnm, nvm and pnpm in the reference's order", "[sandbox]") {
  const std::string base = "/home/u/.local/bin:/home/u/go/bin:/home/u/.cargo/bin:/home/u/.bun/bin:/opt/host-bin:"
                           "/opt/host-cargo-bin:/opt/host-go-bin";
  const std::string sys = ":/usr/local/bin:/usr/bin:/bin:/sbin:/usr/sbin";
  const std::string fnm = "/home/u/.local/share/fnm/node-versions/v22.1.0/installation/bin";
  const std::string nvm = "/home/u/.nvm/versions/node/v20.1.0/bin";
  auto f = host();
  put(f, f.fnm_dir, Kind::Dir);
  f.fnm_node_bin = fnm;
  f.nvm_node_bin = nvm;
  CHECK(sandbox_path(f) == base + ":" + fnm + ":" + nvm + sys);
  f.env["NVM_BIN"] = nvm;
  CHECK(sandbox_path(f) == nvm + ":" + base + ":" + fnm + sys);
  f.env["FNM_MULTISHELL_PATH"] = "/run/user/1000/fnm_multishells/1_2";
  CHECK(sandbox_path(f) == fnm + ":" + base + ":" + nvm + sys);
  // fnm's own binary dir and pnpm's bins, only when present.
  put(f, f.fnm_dir + "/fnm", Kind::File);
  put(f, f.pnpm_home, Kind::Dir);
  put(f, f.pnpm_home + "/bin", Kind::Dir);
  CHECK(sandbox_path(f) == fnm + ":" + base + ":" + nvm + ":" + f.fnm_dir + ":" + f.pnpm_home + "/bin" + sys);
  // A node bin outside the mounted tree is never on PATH; nor fnm's when fnm_dir is not mounted.
  f.fnm_node_bin = "/run/user/1000/fnm_multishells/1_2/bin";
  CHECK(sandbox_path(f).find("fnm_multishells") == std::string::npos);
  f.fnm_node_bin = fnm;
  f.paths.erase(f.fnm_dir);
  CHECK(sandbox_path(f).find(fnm) == std::string::npos);
}

TEST_CASE("linked packages: root read-only, token files read-write, symlinks never bound", "[sandbox]") {
  auto f = host();
  f.linked_packages.push_back({"nvm", "/home/u/dev/mcp", "/home/u/dev/mcp", fact(Kind::File, "/home/u/dev/mcp/.token-cache.json"),
                               PathFact{Kind::Symlink, Kind::File, "/home/u/.bashrc", "/home/u/.bashrc"}});
  // Two scoped packages in one node_modules: one ro-bind, and it must not cover the first one's tokens.
  f.linked_packages.push_back({"bun", "/srv/mono/node_modules/@s/a", "/srv/mono/node_modules",
                               fact(Kind::File, "/srv/mono/node_modules/@s/a/.token-cache.json"),
                               fact(Kind::Missing, "")});
  f.linked_packages.push_back({"bun", "/srv/mono/node_modules/@s/b", "/srv/mono/node_modules",
                               fact(Kind::Missing, ""), fact(Kind::File, "/srv/mono/node_modules/@s/b/.selected-account.json")});
  // Never $HOME (a package.json in $HOME itself), never above it.
  f.linked_packages.push_back({"nvm", "/home/u", "/home/u", fact(Kind::File, "/home/u/.token-cache.json"), {}});
  f.linked_packages.push_back({"nvm", "/home", "/home", fact(Kind::File, "/home/.token-cache.json"), {}});
  auto p = run(f);
  const auto& a = p.argv;
  long root = find(a, {"--ro-bind", "/home/u/dev/mcp", "/home/u/dev/mcp"});
  long tok = find(a, {"--bind", "/home/u/dev/mcp/.token-cache.json", "/home/u/dev/mcp/.token-cache.json"});
  CHECK(root >= 0);
  CHECK(tok > root);
  CHECK(find(a, {"--tmpfs", "/home/u"}) < root);
  CHECK_FALSE(mentions(a, "/home/u/dev/mcp/.selected-account.json"));
  CHECK(warned(p, "/home/u/dev/mcp/.selected-account.json is a symlink"));
  CHECK(std::count(a.begin(), a.end(), "/srv/mono/node_modules") == 2);  // one ro-bind
  long mono = find(a, {"--ro-bind", "/srv/mono/node_modules"});
  CHECK(find(a, {"--bind", "/srv/mono/node_modules/@s/a/.token-cache.json"}) > mono);
  CHECK(find(a, {"--bind", "/srv/mono/node_modules/@s/b/.selected-account.json"}) > mono);
  CHECK_FALSE(has(a, {"--ro-bind", "/home/u", "/home/u"}));
  CHECK_FALSE(mentions(a, "/home/u/.token-cache.json"));
  CHECK_FALSE(mentions(a, "/home/.token-cache.json"));
}

TEST_CASE("linked packages on a real tree: found through the tools' global dirs", "[sandbox][scan]") {
  TempDir t;
  const std::string home = t / "home";
  t.file("home/dev/mcp/package.json");
  t.file("home/dev/mcp/dist/index.js", "");
  t.file("home/dev/scoped/package.json");
  t.file("mono/node_modules/@s/lib/package.json");
  t.file("home/.nvm/versions/node/v20.1.0/lib/node_modules/npm/package.json");  // a real install: not linked
  t.link("home/.nvm/versions/node/v20.1.0/lib/node_modules/mcp", "../../../../../../dev/mcp");
  t.link("home/.nvm/versions/node/v20.1.0/lib/node_modules/@me/scoped", home + "/dev/scoped");
  t.link("home/.nvm/versions/node/v20.1.0/lib/node_modules/dangling", home + "/dev/nowhere");
  t.link("home/.nvm/versions/node/v20.1.0/lib/node_modules/internal", "npm");  // inside nvm: skipped
  t.link("home/.bun/bin/lib-cli", t / "mono/node_modules/@s/lib/package.json");
  t.file("home/.bun/bin/bun", "");
  t.link("home/dev/mcp/.selected-account.json", home + "/.bashrc");  // planted by the package
  HostFacts f = typical_host();
  f.home = f.home_real = home;
  f.cwd = t / "proj";
  f.nvm_dir = home + "/.nvm";
  f.fnm_dir = f.pnpm_home = f.corepack_home = "";
  f.paths.clear();
  probe_node_tools(f);
  REQUIRE(f.linked_packages.size() == 3);
  auto pkg = [&](const std::string& root) -> const LinkedPackage* {
    for (const auto& p : f.linked_packages)
      if (p.root == root) return &p;
    return nullptr;
  };
  const LinkedPackage* mcp = pkg(home + "/dev/mcp");
  REQUIRE(mcp);
  CHECK(mcp->label == "nvm");
  CHECK(mcp->mount == mcp->root);
  CHECK(mcp->token_cache.lkind == Kind::Missing);
  CHECK(mcp->selected_account.lkind == Kind::Symlink);
  REQUIRE(pkg(home + "/dev/scoped"));
  const LinkedPackage* lib = pkg(t / "mono/node_modules/@s/lib");
  REQUIRE(lib);
  CHECK(lib->label == "bun");
  CHECK(lib->mount == t / "mono/node_modules");

  // The missing token file is a preparation of the plan (nothing is created by the probe),
  // bound with -try; applying it never follows the planted link.
  CHECK_FALSE(fs::exists(home + "/dev/mcp/.token-cache.json"));
  auto p = run(f);
  const std::string tc = home + "/dev/mcp/.token-cache.json";
  CHECK(has(p.argv, {"--bind-try", tc, tc}));
  bool listed = false;
  for (const auto& prep : p.preparations) {
    if (prep.path != tc) continue;
    listed = prep.kind == HostPrep::Kind::CreateFile;
    CHECK(blaude::app::apply(prep).empty());
  }
  CHECK(listed);
  for (const auto& prep : p.preparations) CHECK(prep.path != home + "/dev/mcp/.selected-account.json");
  CHECK(fs::is_regular_file(tc));
  CHECK_FALSE(fs::exists(home + "/.bashrc"));
  struct stat st{};
  ::stat(tc.c_str(), &st);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("package roots and their mount points", "[sandbox][scan]") {
  CHECK(linked_mount_for("/x/node_modules/pkg") == "/x/node_modules");
  CHECK(linked_mount_for("/x/node_modules/@scope/pkg") == "/x/node_modules");
  CHECK(linked_mount_for("/x/@scope/pkg") == "/x/@scope/pkg");
  CHECK(linked_mount_for("/home/u/dev/pkg") == "/home/u/dev/pkg");
  TempDir t;
  t.file("home/package.json");
  t.file("home/dev/pkg/package.json");
  t.file("home/dev/pkg/lib/deep/x.js", "");
  t.file("home/dev/loose/x.js", "");
  CHECK(find_package_root(t / "home/dev/pkg/lib/deep/x.js", t / "home") == t / "home/dev/pkg");
  CHECK(find_package_root(t / "home/dev/pkg", t / "home") == t / "home/dev/pkg");
  CHECK(find_package_root(t / "home/dev/loose/x.js", t / "home") == "");  // stops below $HOME
}

TEST_CASE("files and dirs named by environment variables", "[sandbox]") {
  auto f = host();
  f.env = {{"CLAUDE_ENV_FILE", "/home/u/env.sh"},
           {"NODE_EXTRA_CA_CERTS", "/etc/corp/ca.pem"},
           {"GOOGLE_APPLICATION_CREDENTIALS", "relative/creds.json"},
           {"CLAUDE_CODE_CLIENT_KEY", "/home/u/missing.key"},
           {"CLAUDE_SKILL_DIR", "/srv/skills/"},
           {"CLAUDE_PLUGIN_DATA", "/srv/plugin-data"},
           {"CLAUDE_LOGS_DIR", "/home/u"},
           {"CLAUDE_MCP_STDERR_LOG_DIR", "/"},
           {"CLAUDE_SESSION_METADATA_DIR", "/home/u/.config"},
           {"CLAUDE_CODE_WORKSPACE_STATE_DIR", "/home/u/.config/git/hooks"},
           {"CLAUDE_CODE_DEBUG_LOGS_DIR", "/srv/logs/debug.txt"},
           {"CLAUDE_CODE_PLUGIN_SEED_DIR", "/srv/seed1::/srv/seed2:rel"},
           {"CLAUDE_CODE_SHELL_PREFIX", "  /opt/wrap/bin/wrap --audit"},
           {"CLAUDE_CODE_PROCESS_WRAPPER", "/opt/pw"}};
  put(f, "/home/u/env.sh", Kind::File);
  put(f, "/etc/corp/ca.pem", Kind::File);
  for (const char* d : {"/srv/skills", "/srv/plugin-data", "/home/u", "/", "/srv/logs", "/srv/seed1", "/srv/seed2",
                        "/home/u/.config", "/home/u/.config/git/hooks"})
    put(f, d, Kind::Dir);
  put(f, "/opt/wrap/bin/wrap", Kind::File);
  put(f, "/opt/pw", Kind::Dir);  // not a file: skipped
  auto p = run(f);
  const auto& a = p.argv;
  CHECK(has(a, {"--ro-bind", "/home/u/env.sh", "/home/u/env.sh"}));
  CHECK_FALSE(mentions(a, "/etc/corp/ca.pem"));  // visible through /etc already
  CHECK_FALSE(mentions(a, "/home/u/missing.key"));
  CHECK_FALSE(mentions(a, "relative/creds.json"));
  CHECK(has(a, {"--ro-bind", "/srv/skills", "/srv/skills"}));
  CHECK(has(a, {"--bind", "/srv/plugin-data", "/srv/plugin-data"}));
  CHECK(has(a, {"--bind", "/srv/logs", "/srv/logs"}));
  CHECK(has(a, {"--ro-bind", "/srv/seed1", "/srv/seed1"}));
  CHECK(has(a, {"--ro-bind", "/srv/seed2", "/srv/seed2"}));
  CHECK(has(a, {"--ro-bind", "/opt/wrap/bin/wrap", "/opt/wrap/bin/wrap"}));
  CHECK_FALSE(mentions(a, "/opt/pw"));
  // $HOME and its parents are never bound read-write, whatever a variable says.
  CHECK_FALSE(has(a, {"--bind", "/home/u", "/home/u"}));
  CHECK_FALSE(has(a, {"--bind", "/", "/"}));
  CHECK(warned(p, "CLAUDE_LOGS_DIR"));
  CHECK(warned(p, "CLAUDE_MCP_STDERR_LOG_DIR"));
  // Nor ~/.config (or into ~/.config/git): that would undo the read-only git config.
  CHECK_FALSE(has(a, {"--bind", "/home/u/.config", "/home/u/.config"}));
  CHECK_FALSE(mentions(a, "/home/u/.config/git/hooks"));
  CHECK(warned(p, "CLAUDE_SESSION_METADATA_DIR"));
  CHECK(warned(p, "CLAUDE_CODE_WORKSPACE_STATE_DIR"));
  // After $HOME's tmpfs (or it would hide them) and before the workspace.
  CHECK(find(a, {"--tmpfs", "/home/u"}) < find(a, {"--ro-bind", "/home/u/env.sh"}));
  CHECK(find(a, {"--bind", "/srv/plugin-data"}) < find(a, {"--chdir", "/home/u/proj"}));
  // The probe asks about exactly these paths.
  auto poi = paths_of_interest(f);
  for (const char* want : {"/home/u/env.sh", "/srv/logs", "/srv/seed2", "/opt/wrap/bin/wrap"})
    CHECK(std::find(poi.begin(), poi.end(), want) != poi.end());
}

TEST_CASE("a writable env dir containing the workspace is protected there too", "[sandbox]") {
  auto f = host();
  f.env["CLAUDE_CODE_WORKSPACE_DIR"] = "/home/u/proj";
  put(f, "/home/u/proj", Kind::Dir);
  f.ws.hits.push_back({".bashrc", fact(Kind::File, "/home/u/proj/.bashrc")});
  // At its host path the workspace's own bind is that very path: the env dir's bind of it goes.
  auto p = run(f);
  // --bind SRC DST once, --symlink /home/u/proj /workspaces/proj, --chdir /home/u/proj
  CHECK(std::count(p.argv.begin(), p.argv.end(), "/home/u/proj") == 4);
  CHECK(has(p.argv, {"--ro-bind", "/home/u/proj/.bashrc", "/home/u/proj/.bashrc"}));
  CHECK(has(p.notes, {"/home/u/proj is in the project, which is mounted there writable already"}));
  // In the seed's layout: writable at both paths, protected at both.
  SandboxRequest seed;
  seed.seed_workspace = true;
  auto a = run(f, seed).argv;
  CHECK(has(a, {"--bind", "/home/u/proj", "/home/u/proj"}));
  CHECK(has(a, {"--ro-bind", "/home/u/proj/.bashrc", "/home/u/proj/.bashrc"}));
  CHECK(has(a, {"--ro-bind", "/home/u/proj/.bashrc", "/workspaces/proj/.bashrc"}));
}

TEST_CASE("managed settings: which commands, which dirs", "[sandbox]") {
  auto doc = nlohmann::json::parse(R"({
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/corp/bin/audit --pre"}]}],
              "Stop": [{"hooks": [{"command": "'/opt/corp/hooks/stop.sh' \"$X\""}]}]},
    "statusLine": {"type": "command", "command": "/opt/status/line"},
    "apiKeyHelper": "/opt/keys/helper",
    "awsAuthRefresh": 42,
    "policyHelper": {"path": "/opt/policy/p"},
    "sandbox": {"bwrapPath": "/usr/bin/bwrap", "ripgrep": {"command": "/opt/rg/rg"}, "other": {"command": "/opt/no"}},
    "permissions": {"deny": ["/opt/no2"], "x": {"command": "/opt/no3"}}
  })");
  auto cmds = managed_commands(doc);
  std::vector<std::string> want = {"/opt/corp/bin/audit --pre", "'/opt/corp/hooks/stop.sh' \"$X\"", "/opt/status/line",
                                   "/opt/keys/helper", "/opt/policy/p", "/usr/bin/bwrap", "/opt/rg/rg"};
  CHECK(cmds == want);
  CHECK(managed_command_paths("'/opt/corp/hooks/stop.sh' \"$X\" rel /a/../opt/x") ==
        std::vector<std::string>{"/opt/corp/hooks/stop.sh", "/opt/x"});
  CHECK(managed_dir_for("/opt/corp/bin/audit") == "/opt/corp/bin");
  CHECK(managed_dir_for("/opt/x") == "");  // /opt itself is too shallow
  CHECK(managed_dir_for("/usr/local/bin/x") == "");
  CHECK(managed_dir_for("/etc/x/y") == "");
  CHECK(managed_dir_for("/lib64/x/y") == "");
  CHECK(managed_dir_for("/srv/tools/x") == "/srv/tools");

  auto f = host();
  f.managed_dirs = {{"/opt/corp/bin", true}, {"/home/u/bin", false}};
  f.probe_warnings = {"cannot parse /etc/claude-code/managed-settings.d/bad.json; its helper programs are not mounted"};
  auto p = run(f);
  CHECK(has(p.argv, {"--ro-bind", "/opt/corp/bin", "/opt/corp/bin"}));
  CHECK(find(p.argv, {"--dir", "/opt"}) < find(p.argv, {"--ro-bind", "/opt/corp/bin"}));
  CHECK_FALSE(mentions(p.argv, "/home/u/bin"));
  CHECK(warned(p, "not mounting managed path /home/u/bin"));
  CHECK(warned(p, "cannot parse"));
}

TEST_CASE("managed settings probe: root-owned files only, dirs checked", "[sandbox][scan]") {
  TempDir t;
  t.file("tools/bin/audit", "");
  t.file("userdir/bin/x", "");
  ::chmod((t / "userdir/bin").c_str(), 0777);  // writable by others: named, but not mounted
  t.file("etc/managed-settings.json", R"({"apiKeyHelper": ")" + t / "tools/bin/audit" + R"( --x"})");
  t.file("etc/managed-settings.d/10.json", R"({"hooks": {"A": [{"hooks": [{"command": ")" + t / "userdir/bin/x" +
                                             R"("}, {"command": ")" + t / "tools/bin/missing" + R"("}]}]}})");
  t.file("etc/managed-settings.d/20.json", R"({"apiKeyHelper": ")" + t / "tools/bin/audit" + R"("})");  // dedup
  t.file("etc/managed-settings.d/30.json", "{not json");
  t.file("etc/managed-settings.d/40.json", R"({"apiKeyHelper": ")" + t / "userdir/bin/x" + R"("})");
  for (const char* ok : {"tools/bin", "etc", "etc/managed-settings.d"}) ::chmod((t / ok).c_str(), 0755);
  for (const char* ok : {"etc/managed-settings.json", "etc/managed-settings.d/10.json", "etc/managed-settings.d/20.json",
                         "etc/managed-settings.d/30.json"})
    ::chmod((t / ok).c_str(), 0644);
  ::chmod((t / "etc/managed-settings.d/40.json").c_str(), 0666);  // not trusted: ignored entirely
  std::vector<std::string> warnings;
  auto dirs = probe_managed_dirs(t / "etc", warnings, ::geteuid());
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0].path == t / "tools/bin");
  CHECK(dirs[0].root_owned);
  CHECK(dirs[1].path == t / "userdir/bin");
  CHECK_FALSE(dirs[1].root_owned);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("30.json") != std::string::npos);
  CHECK(probe_managed_dirs(t / "nowhere", warnings, ::geteuid()).empty());
  // Owned by someone else than the trusted owner: nothing is read.
  CHECK(probe_managed_dirs(t / "etc", warnings, ::geteuid() + 1).empty());
}

TEST_CASE("--dry-run prints data fds as here-documents, runnable in sh", "[sandbox]") {
  LaunchPlan p;
  p.argv = {"bwrap", "--dir", "/run/x", "--ro-bind-data", "@fd:resolv", "/run/x/resolv.conf", "--", "cat", "/run/x/resolv.conf"};
  p.ops = std::make_shared<const Ops>(ops_from_words({p.argv.begin() + 1, p.argv.begin() + 6}));
  p.options_end = 6;
  p.data_fds.push_back({"@fd:resolv", "nameserver 10.0.0.1\nBLAUDE_DATA_3\n"});
  std::string s = format_command(p);
  CHECK(s ==
        "bwrap \\\n  --dir /run/x --ro-bind-data 3 /run/x/resolv.conf \\\n  -- cat /run/x/resolv.conf"
        " 3<<'BLAUDE_DATA_3_'\nnameserver 10.0.0.1\nBLAUDE_DATA_3\nBLAUDE_DATA_3_\n");
  p.data_fds.clear();
  p.argv = {"bwrap", "--", "true"};
  p.ops = std::make_shared<const Ops>();
  p.options_end = 1;
  CHECK(format_command(p) == format_command("bwrap", {}, {"--", "true"}));
}
