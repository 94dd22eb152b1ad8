// Golden profiles of representative projects: the whole text, so any change to what a project
// gets is seen in review (BLAUDE_UPDATE_GOLDEN=1 rewrites them). Each also goes through the
// SBPL reader, so a golden file that does not parse fails here, not on a Mac.
#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/seatbelt/workspace.hpp"
#include "seatbelt/fixtures.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using namespace blaude::sandbox::seatbelt;
using namespace blaude::sandbox::seatbelt::testing;
namespace ws = blaude::sandbox::workspace;

namespace {

const std::string P = kProject;
const std::string H = kHome;

Grants grants_of(const std::string& text) {
  auto r = parse_policy(text, P + "/.blaude", blaude::sandbox::testing::test_context());
  INFO(text);
  REQUIRE(r.ok());
  return policy_grants(r.policy);
}

void check(const char* name, const std::string& profile) {
  check_golden(name, profile);
  auto forms = sbpl::read_all(profile);
  REQUIRE(forms.size() > 10);
  CHECK(forms[0].str() == "(version 1)");
  CHECK(forms[1].str() == "(deny default)");
  CHECK(forms[forms.size() - 2].head() == "deny");
  CHECK(forms.back().head() == "deny");
}

}  // namespace

TEST_CASE("seatbelt golden: a JS/Rust monorepo with nested repos, a submodule, husky and a policy", "[seatbelt]") {
  FakeFs f;
  f.file(P + "/.git/config", "[core]\n\thooksPath = .husky/_\n[submodule \"vendor/lib\"]\n\turl = x\n");
  f.dir(P + "/.git/hooks");
  f.dir(P + "/.husky/_");
  f.file(P + "/.git/modules/vendor/lib/config", "");
  f.file(P + "/vendor/lib/.git", "gitdir: ../../.git/modules/vendor/lib\n");
  f.file(P + "/packages/api/.git/config", "");
  ws::WorkspaceWalk walk;
  walk.git = {{ws::FoundGit::Dir, P + "/.git"},
              {ws::FoundGit::File, P + "/vendor/lib/.git"},
              {ws::FoundGit::Dir, P + "/packages/api/.git"}};
  walk.dotnames = {{".env", S_IFREG}, {".env.example", S_IFREG}, {".vscode", S_IFDIR}, {".mcp.json", S_IFREG}};
  auto w = protections_from(P, walk, ws::scan_repos(f, walk.git, {}, H), f);
  auto h = mac_host();
  h.protect = w.protect;
  h.program_found = "/opt/homebrew/bin/claude";
  h.program_real = "/opt/homebrew/Caskroom/claude-code/2.1.3/claude";
  check("seatbelt_monorepo.sb",
        seatbelt_profile(grants_of("tool node\ntool rust\nallow-read ~/.config/special\n"),
                         decide(h, claude_request(), true, P + "/.blaude").ctx));
}

TEST_CASE("seatbelt golden: a linked worktree, dotfiles through symlinks, claude under nvm, Xcode, opt-ins",
          "[seatbelt]") {
  auto h = mac_host();
  const std::string main = H + "/src/main/.git";
  h.git_dirs = {main + "/worktrees/app", main};
  h.protect = {{main + "/config", false, "config"}, {main + "/hooks", true, "hooks"},
               {main + "/worktrees/app/commondir", false, "pointer"},
               {main + "/worktrees/app/gitdir", false, "pointer"}, {P + "/.git", false, ".git file"}};
  h.home_entries = {{H + "/.gitconfig", H + "/.dotfiles/git/config", true, false},
                    {H + "/.zshrc", H + "/.dotfiles/zsh/zshrc", true, false}};
  h.claude_config_dir = H + "/.dotfiles/claude";
  h.program_found = H + "/.nvm/versions/node/v22.1.0/bin/claude";
  h.program_real = H + "/.nvm/versions/node/v22.1.0/lib/node_modules/@anthropic-ai/claude-code/cli.js";
  h.interpreter_real = H + "/.nvm/versions/node/v22.1.0/bin/node";
  h.developer_dirs = {"/Applications/Xcode.app/Contents/Developer", "/Library/Developer/CommandLineTools"};
  h.ssh_dir = {H + "/.ssh", H + "/.ssh", false, false};
  h.ssh_sock = {"/private/tmp/com.apple.launchd.x/Listeners", "/private/tmp/com.apple.launchd.x/Listeners", false, true};
  h.aws_dir = {H + "/.aws", H + "/.aws", false, false};
  h.gnupg_public = {H + "/.gnupg/pubring.kbx", H + "/.gnupg/trustdb.gpg"};
  h.gpg_sock = {H + "/.gnupg/S.gpg-agent", H + "/.gnupg/S.gpg-agent", false, true};
  h.mounts = {{H + "/libs", H + "/libs", false, false}, {H + "/data", "/Volumes/ext/data", true, false}};
  auto r = claude_request();
  r.ssh = r.git = r.aws = r.keyring = true;
  r.mounts = {{H + "/libs", false}, {H + "/data", true}};
  check("seatbelt_worktree.sb", seatbelt_profile({}, decide(h, r).ctx));
}

TEST_CASE("seatbelt golden: --tmp --clear-tmp --no-network, no terminal", "[seatbelt]") {
  auto r = claude_request();
  r.tmp = r.clear_tmp = r.no_network = true;
  check("seatbelt_tmp.sb", seatbelt_profile({}, decide(mac_host(), r, false).ctx));
}
