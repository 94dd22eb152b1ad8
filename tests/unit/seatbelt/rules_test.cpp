// One test per rule of the Seatbelt profile, asked of the profile's
// meaning (sbpl::decide, last match wins), each with a control that shows the question can be
// answered the other way.
#include "seatbelt/fixtures.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::seatbelt;
using namespace blaude::sandbox::seatbelt::testing;
using sbpl::decide;

namespace {

const std::string P = kProject;
const std::string H = kHome;

std::vector<sbpl::Node> base_forms(SeatbeltHost h = mac_host(), SandboxRequest r = claude_request()) {
  return forms_of(decide(h, r).ctx);
}

}  // namespace

TEST_CASE("seatbelt rules: git init, clone and worktree add work outside the project (C1)", "[seatbelt]") {
  auto f = base_forms();
  for (const std::string& d : std::vector<std::string>{"/private/tmp/clone", std::string(kTemp) + "/pip-req-build-x"}) {
    INFO(d);
    CHECK(decide(f, "file-write*", d + "/.git/config"));
    CHECK(decide(f, "file-write*", d + "/.git/hooks/pre-commit.sample"));
    CHECK(decide(f, "file-write*", d + "/.git/worktrees/w/commondir"));
    CHECK(decide(f, "file-write-unlink", d + "/.git"));  // rm -rf of a clone
    CHECK(decide(f, "file-write*", d + "/.env"));
  }
  // A new worktree of the project, created next to it inside the project dir.
  CHECK(decide(f, "file-write*", P + "/.claude/worktrees/feature/README"));
  // Control: the project's own repository stays protected.
  CHECK_FALSE(decide(f, "file-write*", P + "/.git/config"));
  CHECK_FALSE(decide(f, "file-write*", P + "/.git/hooks/pre-commit"));
}

TEST_CASE("seatbelt rules: .env files, not .env.example (C1)", "[seatbelt]") {
  auto h = mac_host();
  h.protect.push_back({P + "/api/.env.local", false, "existing"});
  auto f = base_forms(h);
  CHECK(decide(f, "file-write*", P + "/.env.example"));
  CHECK(decide(f, "file-write*", P + "/.env.sample"));
  CHECK(decide(f, "file-write*", P + "/web/.env"));  // not there when the session started
  CHECK_FALSE(decide(f, "file-write*", P + "/api/.env.local"));
  // xclaude's names at the root, even when missing (make_context adds them only through the scan:
  // here they come from the scan's root list, see workspace_test).
}

TEST_CASE("seatbelt rules: renaming a directory above a protected path is denied (rename class)", "[seatbelt]") {
  auto h = mac_host();
  h.protect.push_back({P + "/packages/app/.git/config", false, "nested repo"});
  auto f = base_forms(h);
  // mv packages/app x; write x/.git/config; mv x packages/app
  for (const std::string& a : std::vector<std::string>{P + "/packages/app/.git", P + "/packages/app", P + "/packages", P, H + "/src"}) {
    INFO(a);
    CHECK_FALSE(decide(f, "file-write-unlink", a));
  }
  // Control: an unrelated dir can be renamed and removed.
  CHECK(decide(f, "file-write-unlink", P + "/packages/web"));
  CHECK(decide(f, "file-write*", P + "/packages/app/src/main.ts"));
}

TEST_CASE("seatbelt rules: protected paths are also denied in any letter case (D5)", "[seatbelt]") {
  auto f = base_forms();
  CHECK_FALSE(decide(f, "file-write*", P + "/.GIT/HOOKS/pre-commit"));
  CHECK_FALSE(decide(f, "file-write*", P + "/.Git/Config"));
  CHECK_FALSE(decide(f, "file-write*", "/USERS/ALICE/SRC/APP/.git/hooks/x"));
  CHECK(decide(f, "file-write*", P + "/.GIT/objects/ab/cd"));  // control
}

TEST_CASE("seatbelt rules: claude and tools run where they are installed (C2, C3)", "[seatbelt]") {
  auto h = mac_host();
  h.program_found = "/Users/alice/n/bin/claude";
  h.program_real = "/Users/alice/n/lib/node_modules/@anthropic-ai/claude-code/cli.js";
  h.interpreter_real = "/Users/alice/n/bin/node";
  h.developer_dirs = {"/Applications/Xcode.app/Contents/Developer", "/Library/Developer/CommandLineTools"};
  auto f = base_forms(h);
  for (const std::string& x : std::vector<std::string>{"/usr/local/bin/node", "/usr/local/lib/node_modules/npm/bin/npm-cli.js",
                               "/opt/homebrew/bin/git", "/opt/local/bin/port",
                               H + "/.nvm/versions/node/v22.1.0/bin/node", H + "/.volta/bin/node",
                               H + "/.volta/tools/image/node/22.1.0/bin/node", H + "/.bun/bin/claude",
                               H + "/.bun/install/global/node_modules/@anthropic-ai/claude-code/cli.js",
                               H + "/.npm-global/bin/claude", H + "/.local/bin/claude",
                               H + "/.local/share/claude/versions/2.1.3",
                               H + "/n/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/arm64-darwin/rg",
                               H + "/n/bin/node", "/Applications/Xcode.app/Contents/Developer/usr/bin/git",
                               "/Library/Developer/CommandLineTools/usr/bin/clang", "/usr/libexec/path_helper",
                               "/usr/sbin/lsof", P + "/scripts/build.sh"}) {
    INFO(x);
    CHECK(decide(f, "process-exec", x));
    CHECK(decide(f, "file-read-data", x));
  }
  // Controls: nothing else in home, and temporary dirs hold no programs.
  for (const std::string& x : std::vector<std::string>{H + "/Downloads/installer", H + "/n/other/tool", "/private/tmp/x.sh",
                               std::string(kTemp) + "/x", "/Applications/Evil.app/Contents/MacOS/evil"}) {
    INFO(x);
    CHECK_FALSE(decide(f, "process-exec", x));
  }
  // The tool homes are not writable: a binary planted there would run on the host later.
  CHECK_FALSE(decide(f, "file-write*", H + "/.nvm/versions/node/v22.1.0/bin/node"));
  CHECK_FALSE(decide(f, "file-write*", H + "/.local/bin/claude"));
}

TEST_CASE("seatbelt rules: a program in a dir too wide to open is granted alone", "[seatbelt]") {
  auto h = mac_host();
  h.program_real = H + "/claude";
  h.interpreter_real = "/node";
  auto f = base_forms(h);
  CHECK(decide(f, "process-exec", H + "/claude"));
  CHECK_FALSE(decide(f, "process-exec", H + "/other"));
  CHECK_FALSE(decide(f, "file-read-data", H + "/.ssh/id_ed25519"));
}

TEST_CASE("seatbelt rules: the per-user cache and volatile dirs (C4)", "[seatbelt]") {
  auto f = base_forms();
  for (const char* d : {"/private/var/folders/xy/abc123/T/x", "/private/var/folders/xy/abc123/C/mds/x",
                        "/private/var/folders/xy/abc123/X/clone"}) {
    INFO(d);
    CHECK(decide(f, "file-write*", d));
    CHECK(decide(f, "file-read-data", d));
  }
  CHECK_FALSE(decide(f, "file-write*", "/private/var/folders/zz/other/T/x"));  // another user's
}

TEST_CASE("seatbelt rules: /dev/fd/N, /dev/stdout, /dev/stderr; only our own terminal (C5)", "[seatbelt]") {
  auto f = base_forms();
  for (const char* d : {"/dev/fd/1", "/dev/fd/63", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/null"}) {
    INFO(d);
    CHECK(decide(f, "file-write-data", d));
  }
  CHECK(decide(f, "file-ioctl", "/dev/ttys004"));
  CHECK(decide(f, "file-ioctl", "/dev/tty"));
  CHECK_FALSE(decide(f, "file-ioctl", "/dev/ttys005"));  // another session's terminal
  CHECK_FALSE(decide(f, "file-write-data", "/dev/ttys005"));
  CHECK_FALSE(decide(f, "file-write-data", "/dev/fd/x"));
  CHECK_FALSE(decide(f, "file-write-data", "/dev/disk0"));
  // Without a pty of its own (pipes mode) neither /dev/tty nor any ttys device.
  auto pipes = forms_of(decide(mac_host(), claude_request(), false).ctx);
  CHECK_FALSE(decide(pipes, "file-ioctl", "/dev/tty"));
  CHECK_FALSE(decide(pipes, "file-ioctl", "/dev/ttys004"));
}

TEST_CASE("seatbelt rules: home entries resolved through symlinks (C6)", "[seatbelt]") {
  auto h = mac_host();
  h.home_entries.push_back({H + "/.gitconfig", H + "/dotfiles/git/gitconfig", true, false});
  h.home_entries.push_back({H + "/.zshrc", H + "/dotfiles/zsh/zshrc", true, false});
  h.home_entries.push_back({H + "/.local/bin", "/nix/store/abc-home/bin", true, false});
  h.claude_config_dir = H + "/dotfiles/claude";  // CLAUDE_CONFIG_DIR, resolved
  auto f = base_forms(h);
  CHECK(decide(f, "file-read-data", H + "/dotfiles/git/gitconfig"));
  CHECK(decide(f, "file-read-data", H + "/dotfiles/zsh/zshrc"));
  CHECK(decide(f, "process-exec", "/nix/store/abc-home/bin/rg"));
  CHECK(decide(f, "file-write*", H + "/dotfiles/claude/settings.json"));
  CHECK(decide(f, "file-read-data", H + "/.config/git/config"));
  CHECK(decide(f, "file-read-data", H + "/.config/git/ignore"));
  CHECK_FALSE(decide(f, "file-read-data", H + "/dotfiles/ssh/config"));  // control
}

TEST_CASE("seatbelt rules: Claude's state files, atomic temp files included (C8)", "[seatbelt]") {
  auto f = base_forms();
  for (const std::string& p : std::vector<std::string>{H + "/.claude.json", H + "/.claude.json.lock", H + "/.claude.json.tmp.123.456",
                               H + "/.claude.json.backup", H + "/.claude/projects/x.jsonl",
                               H + "/Library/Caches/claude-cli-nodejs/mcp.log", H + "/.local/state/claude/lock"}) {
    INFO(p);
    CHECK(decide(f, "file-write*", p));
  }
  CHECK_FALSE(decide(f, "file-write*", H + "/Library/LaunchAgents/.claude.json.plist"));
  CHECK_FALSE(decide(f, "file-write*", H + "/x/.claude.json"));
}

TEST_CASE("seatbelt rules: unix sockets, Docker's above all, are not reachable (D2)", "[seatbelt]") {
  auto h = mac_host();
  h.ssh_sock = {"/private/tmp/com.apple.launchd.abc/Listeners", "/private/tmp/com.apple.launchd.abc/Listeners", false, true};
  h.gpg_sock = {H + "/.gnupg/S.gpg-agent", H + "/.gnupg/S.gpg-agent", false, true};
  auto f = base_forms(h);
  for (const std::string& s : std::vector<std::string>{H + "/.docker/run/docker.sock", "/private/var/run/docker.sock",
                               H + "/.orbstack/run/docker.sock", H + "/.colima/default/docker.sock",
                               "/private/tmp/tmux-501/default", "/private/tmp/com.apple.launchd.abc/Listeners",
                               H + "/.gnupg/S.gpg-agent", H + "/Library/Application Support/cmux/cmux.sock"}) {
    INFO(s);
    CHECK_FALSE(decide(f, "network-outbound", s));
  }
  CHECK(decide(f, "network-outbound", "/private/var/run/mDNSResponder"));  // DNS
  // The agents, only behind their options.
  auto r = claude_request();
  r.ssh = true;
  auto with_ssh = forms_of(decide(h, r).ctx);
  CHECK(decide(with_ssh, "network-outbound", "/private/tmp/com.apple.launchd.abc/Listeners"));
  CHECK_FALSE(decide(with_ssh, "network-outbound", H + "/.gnupg/S.gpg-agent"));
  CHECK_FALSE(decide(with_ssh, "network-outbound", H + "/.docker/run/docker.sock"));
  r.ssh = false;
  r.git = true;
  auto with_git = forms_of(decide(h, r).ctx);
  CHECK(decide(with_git, "network-outbound", H + "/.gnupg/S.gpg-agent"));
  CHECK_FALSE(decide(with_git, "network-outbound", "/private/tmp/com.apple.launchd.abc/Listeners"));
}

TEST_CASE("seatbelt rules: the keychain is readable, writable only with --keyring (D3)", "[seatbelt]") {
  const std::string kc = H + "/Library/Keychains/login.keychain-db";
  auto f = base_forms();
  CHECK(decide(f, "file-read-data", kc));
  CHECK(decide(f, "process-exec", "/usr/bin/security"));
  CHECK_FALSE(decide(f, "file-write*", kc));
  auto r = claude_request();
  r.keyring = true;
  CHECK(decide(forms_of(decide(mac_host(), r).ctx), "file-write*", kc));
}

TEST_CASE("seatbelt rules: what stays unreadable (the seed's list)", "[seatbelt]") {
  auto f = base_forms();
  for (const std::string& p : std::vector<std::string>{H + "/.ssh/id_ed25519", H + "/.aws/credentials", H + "/.gnupg/private-keys-v1.d/x",
                               H + "/.docker/config.json", H + "/Desktop/a", H + "/Downloads/a", H + "/Documents/a",
                               H + "/Library/Mail/x", H + "/.zsh_history", H + "/src/other/secret"}) {
    INFO(p);
    CHECK_FALSE(decide(f, "file-read-data", p));
  }
  CHECK(decide(f, "file-read-data", P + "/README.md"));  // control
}

TEST_CASE("seatbelt rules: --ssh, --aws, --git open their files read-only", "[seatbelt]") {
  auto h = mac_host();
  h.ssh_dir = {H + "/.ssh", H + "/.ssh", false, false};
  h.aws_dir = {H + "/.aws", H + "/.aws", false, false};
  h.git_credentials = {H + "/.git-credentials", H + "/.git-credentials", false, false};
  h.gnupg_public = {H + "/.gnupg/pubring.kbx", H + "/.gnupg/trustdb.gpg"};
  auto r = claude_request();
  r.ssh = r.aws = r.git = true;
  auto f = forms_of(decide(h, r).ctx);
  for (const std::string& p : std::vector<std::string>{H + "/.ssh/id_ed25519", H + "/.aws/credentials", H + "/.git-credentials",
                               H + "/.gnupg/pubring.kbx"}) {
    INFO(p);
    CHECK(decide(f, "file-read-data", p));
    CHECK_FALSE(decide(f, "file-write*", p));
  }
  CHECK_FALSE(decide(f, "file-read-data", H + "/.gnupg/private-keys-v1.d/k.key"));
}

TEST_CASE("seatbelt rules: -m mounts, --tmp and --clear-tmp", "[seatbelt]") {
  auto h = mac_host();
  h.mounts = {{"/Users/alice/libs", "/Users/alice/libs", false, false},
              {"/Users/alice/data", "/Volumes/ext/data", true, false}};
  auto r = claude_request();
  r.mounts = {{"/Users/alice/libs", false}, {"/Users/alice/data", true}};
  auto d = decide(h, r);
  auto f = forms_of(d.ctx);
  CHECK(decide(f, "file-read-data", "/Users/alice/libs/a.h"));
  CHECK_FALSE(decide(f, "file-write*", "/Users/alice/libs/a.h"));
  CHECK(decide(f, "file-write*", "/Volumes/ext/data/x"));
  CHECK(d.notes.size() == 1);  // the symlinked mount is named

  r = claude_request();
  r.tmp = true;
  d = decide(mac_host(), r);
  f = forms_of(d.ctx);
  CHECK(d.cwd == "/private/tmp");
  CHECK_FALSE(decide(f, "file-read-data", P + "/README.md"));
  CHECK(decide(f, "file-write*", "/private/tmp/x"));
  r.clear_tmp = true;
  d = decide(mac_host(), r);
  f = forms_of(d.ctx);
  CHECK(d.cwd == kTemp);
  CHECK_FALSE(decide(f, "file-read-data", "/private/tmp/tmux-501/x"));
  CHECK_FALSE(decide(f, "file-write*", "/private/tmp/x"));
  CHECK(decide(f, "file-write*", std::string(kTemp) + "/x"));
}

TEST_CASE("seatbelt rules: --no-network keeps loopback only", "[seatbelt]") {
  auto r = claude_request();
  r.no_network = true;
  const auto text = seatbelt_profile({}, decide(mac_host(), r).ctx);
  CHECK(text.find("(allow network*)") == std::string::npos);
  CHECK(text.find("(allow network-outbound (remote ip \"localhost:*\"))") != std::string::npos);
  CHECK(seatbelt_profile({}, decide(mac_host(), claude_request()).ctx).find("(allow network*)") !=
        std::string::npos);  // control
}

TEST_CASE("seatbelt rules: --allow-protected-writes drops the workspace protections, never the policy files",
          "[seatbelt]") {
  auto r = claude_request();
  r.allow_protected_writes = true;
  auto f = forms_of(decide(mac_host(), r, true, P + "/.blaude").ctx);
  CHECK(decide(f, "file-write*", P + "/.git/hooks/pre-commit"));
  CHECK_FALSE(decide(f, "file-write*", P + "/.blaude"));
  CHECK_FALSE(decide(f, "file-write*", P + "/.xclaude"));  // not there: cannot be created either
}

TEST_CASE("seatbelt rules: a linked worktree commits into its git dirs outside the project", "[seatbelt]") {
  auto h = mac_host();
  const std::string main = H + "/src/main/.git";
  h.git_dirs = {main + "/worktrees/app", main};
  h.protect = {{main + "/config", false, "config"}, {main + "/hooks", true, "hooks"},
               {main + "/worktrees/app/commondir", false, "pointer"}, {P + "/.git", false, ".git file"}};
  auto f = base_forms(h);
  CHECK(decide(f, "file-write*", main + "/objects/ab/cdef"));
  CHECK(decide(f, "file-write*", main + "/worktrees/app/HEAD"));
  CHECK_FALSE(decide(f, "file-write*", main + "/config"));
  CHECK_FALSE(decide(f, "file-write*", main + "/hooks/post-checkout"));
  CHECK_FALSE(decide(f, "file-write*", main + "/worktrees/app/commondir"));
  CHECK_FALSE(decide(f, "file-write*", P + "/.git"));  // gitdir: ./evil
  CHECK_FALSE(decide(f, "file-write-unlink", main));
  CHECK_FALSE(decide(f, "file-read-data", H + "/src/main/README"));  // the main checkout itself
}

TEST_CASE("seatbelt rules: TMPDIR is used only where macOS puts it (D6)", "[seatbelt]") {
  for (const std::string& bad : std::vector<std::string>{std::string("/"), H + "/src", H + "/Documents", "/private/tmp",
                                "/private/var/folders/xy/abc123", "/private/var/folders/xy/abc123/T/../..",
                                "/private/var/folders/xy/abc123/C"}) {
    INFO(bad);
    auto h = mac_host();
    h.darwin_temp = bad;
    h.darwin_cache.clear();
    auto d = decide(h, claude_request());
    CHECK(d.ctx.tmp_dir.empty());
    CHECK(d.tmpdir.empty());
    CHECK(d.warnings.size() == 1);
    auto f = forms_of(d.ctx);
    CHECK_FALSE(decide(f, "file-write*", H + "/src/other/x"));
  }
  auto d = decide(mac_host(), claude_request());
  CHECK(d.ctx.tmp_dir == kTemp);
  CHECK(d.tmpdir == std::string(kTemp) + "/");
}

TEST_CASE("seatbelt rules: Claude Code's programs in its writable config dir are write-denied", "[seatbelt]") {
  auto h = mac_host();
  h.claude_scripts = {H + "/.claude/statusline.sh", P + "/scripts/hook.sh"};
  auto f = base_forms(h);
  const std::string C = H + "/.claude";
  for (const std::string& p : std::vector<std::string>{C + "/hooks/pre.sh", C + "/hooks", C + "/plugins/cache/x/hooks/hooks.json",
                                                       C + "/local/claude", C + "/statusline.sh", P + "/scripts/hook.sh"}) {
    INFO(p);
    CHECK_FALSE(decide(f, "file-write*", p));
  }
  // Renaming the config dir would carry the denied paths out from under the rules.
  CHECK_FALSE(decide(f, "file-write-unlink", C));
  // Controls: the rest of claude's dir stays writable (settings, sessions, todos), and so does a
  // script nobody's settings name.
  for (const std::string& p : std::vector<std::string>{C + "/settings.json", C + "/projects/x/s.jsonl", C + "/todos/t.json",
                                                       C + "/other.sh", P + "/scripts/other.sh"}) {
    INFO(p);
    CHECK(decide(f, "file-write*", p));
  }
  // Control: --allow-protected-writes lifts them, as every protection.
  auto r = claude_request();
  r.allow_protected_writes = true;
  auto open = base_forms(h, r);
  CHECK(decide(open, "file-write*", C + "/hooks/pre.sh"));
  CHECK(decide(open, "file-write*", C + "/statusline.sh"));
}
