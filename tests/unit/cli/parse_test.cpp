// The drop-in command line: what blaude consumes, what reaches claude and in which order.
#include <string>
#include <vector>

#include "catch.hpp"
#include "common/shell_quote.hpp"
#include "cli/command.hpp"
#include "cli/parse.hpp"

using namespace blaude;
using namespace blaude::cli;
using Args = std::vector<std::string>;

namespace {

Options ok(const Args& a) {
  auto r = parse(a);
  INFO("args: " << shell_quote(a));
  REQUIRE(std::holds_alternative<Options>(r));
  return std::get<Options>(r);
}

std::string err(const Args& a) {
  auto r = parse(a);
  INFO("args: " << shell_quote(a));
  REQUIRE(std::holds_alternative<UsageError>(r));
  return std::get<UsageError>(r).message;
}

}  // namespace

TEST_CASE("unknown arguments reach claude unchanged and in order") {
  CHECK(ok({"-p", "hello"}).claude_args == Args{"-p", "hello"});
  CHECK(ok({"--resume"}).claude_args == Args{"--resume"});
  CHECK(ok({"mcp", "list"}).claude_args == Args{"mcp", "list"});
  CHECK(ok({"-c", "--model", "opus", "-v"}).claude_args == Args{"-c", "--model", "opus", "-v"});
  CHECK(ok({"--resume", "abc", "--fork-session"}).claude_args ==
        Args{"--resume", "abc", "--fork-session"});
}

TEST_CASE("blaude options mix freely with claude's") {
  auto a = ok({"-c", "--git", "--ssh"});
  auto b = ok({"--git", "--ssh", "-c"});
  CHECK(a.claude_args == Args{"-c"});
  CHECK(b.claude_args == Args{"-c"});
  CHECK((a.git && a.ssh && b.git && b.ssh));
  auto m = ok({"-p", "--no-network", "explain", "--keep-env", "this"});
  CHECK(m.claude_args == Args{"-p", "explain", "this"});
  CHECK(m.no_network);
  CHECK(m.keep_env);
}

TEST_CASE("every boolean option from the seed's table sets its field") {
  struct Row {
    const char* flag;
    bool Options::*field;
  };
  const Row rows[] = {
      {"--git", &Options::git}, {"--ssh", &Options::ssh}, {"--aws", &Options::aws},
      {"--no-network", &Options::no_network}, {"--keyring", &Options::keyring},
      {"--remote-control", &Options::remote_control}, {"--keep-env", &Options::keep_env},
      {"--chic", &Options::chic}, {"--tmp", &Options::tmp}, {"--clear-tmp", &Options::clear_tmp},
      {"--allow-protected-writes", &Options::allow_protected_writes},
      {"--debug", &Options::debug}, {"--dry-run", &Options::dry_run},
      {"--no-clipboard", &Options::no_clipboard}, {"--no-sandbox", &Options::no_sandbox},
  };
  for (const auto& r : rows) {
    INFO(r.flag);
    Options o = ok({r.flag});
    CHECK(o.*(r.field));
    CHECK(o.claude_args.empty());
    CHECK_FALSE(Options{}.*(r.field));
  }
  CHECK(ok({"--dry-run"}).debug);  // the seed: --dry-run shows the command too
}

TEST_CASE("-- ends blaude's options; the rest reaches claude without it") {
  auto o = ok({"-p", "--", "--debug", "--git"});
  CHECK(o.claude_args == Args{"-p", "--debug", "--git"});
  CHECK_FALSE(o.debug);
  CHECK_FALSE(o.git);
  CHECK(o.saw_double_dash);
  // `blaude -- --debug` is `claude --debug`, not a prompt "--debug".
  CHECK(ok({"--", "--debug"}).claude_args == Args{"--debug"});
  CHECK(choose_command(ok({"--", "--debug"}), true) == Args{"claude", "--dangerously-skip-permissions", "--debug"});
  // A second -- is claude's own.
  CHECK(ok({"--", "--", "x"}).claude_args == Args{"--", "x"});
  CHECK(ok({"--"}).claude_args.empty());
  // After --, no did-you-mean either: the word is claude's.
  CHECK(ok({"--", "--dryrun"}).claude_args == Args{"--dryrun"});
  // Without --, the bash blaude's behaviour: a blaude flag is consumed wherever it is.
  auto p = ok({"-p", "--debug"});
  CHECK(p.claude_args == Args{"-p"});
  CHECK(p.debug);
  // A subcommand after -- is a prompt, not a host bypass.
  CHECK(ok({"--", "update"}).action == Action::Run);
  CHECK(ok({"--", "doctor"}).action == Action::Run);
  CHECK(ok({"--", "doctor"}).claude_args == Args{"doctor"});
  CHECK(ok({"-p", "--", "update"}).action == Action::Run);
}

TEST_CASE("--exec takes the rest verbatim") {
  auto o = ok({"--git", "--exec", "bash", "-c", "echo --git --debug", "--", "-m"});
  CHECK(o.exec == Args{"bash", "-c", "echo --git --debug", "--", "-m"});
  CHECK(o.git);
  CHECK_FALSE(o.debug);
  CHECK(o.claude_args.empty());
  CHECK(choose_command(o, true) == o.exec);
  CHECK(err({"--exec"}).find("--exec requires a command") != std::string::npos);
  CHECK(err({"-c", "--exec", "bash"}).find("'-c'") != std::string::npos);
  CHECK(err({"--chic", "--exec", "bash"}).find("--chic") != std::string::npos);
}

TEST_CASE("--env KEY=VALUE: split at the first '=', names validated") {
  auto o = ok({"--env", "A=1", "--env=B=x=y", "--env", "C="});
  REQUIRE(o.env.size() == 3);
  CHECK(o.env[0] == std::pair<std::string, std::string>{"A", "1"});
  CHECK(o.env[1] == std::pair<std::string, std::string>{"B", "x=y"});
  CHECK(o.env[2] == std::pair<std::string, std::string>{"C", ""});
  CHECK(ok({"--env", "_x9=v w"}).env[0].second == "v w");
  CHECK(err({"--env", "FOO"}).find("no '='") != std::string::npos);  // bash made FOO=FOO
  CHECK(err({"--env", "=v"}).find("valid variable name") != std::string::npos);
  CHECK(err({"--env", "9A=v"}).find("valid variable name") != std::string::npos);
  CHECK(err({"--env", "A-B=v"}).find("valid variable name") != std::string::npos);
  CHECK(err({"--env"}).find("requires a value") != std::string::npos);
  CHECK(err({"-c", "--env"}).find("requires a value") != std::string::npos);
  CHECK(err({"--env", "--git"}).find("requires a value") != std::string::npos);
}

TEST_CASE("-m/--mount PATH[:rw]") {
  auto o = ok({"-m", "/a", "--mount", "/b:rw", "--mount=/c:ro", "-c"});
  REQUIRE(o.mounts.size() == 3);
  CHECK((o.mounts[0].path == "/a" && !o.mounts[0].rw));
  CHECK((o.mounts[1].path == "/b" && o.mounts[1].rw));
  CHECK((o.mounts[2].path == "/c" && !o.mounts[2].rw));
  CHECK(o.claude_args == Args{"-c"});
  CHECK(err({"-m"}).find("-m requires a value") != std::string::npos);
  CHECK(err({"--mount"}).find("requires a value") != std::string::npos);
  CHECK(err({"-m", ":rw"}).find("needs a PATH") != std::string::npos);
  CHECK(err({"-m", "-c"}).find("requires a value") != std::string::npos);
}

TEST_CASE("--help and --version are blaude's unless a claude argument came first") {
  CHECK(ok({"--help"}).action == Action::Help);
  CHECK(ok({"-h"}).action == Action::Help);
  CHECK(ok({"--git", "--help"}).action == Action::Help);
  CHECK(ok({"--version"}).action == Action::Version);
  auto m = ok({"mcp", "--help"});
  CHECK(m.action == Action::Run);
  CHECK(m.claude_args == Args{"mcp", "--help"});
  CHECK(ok({"-v"}).claude_args == Args{"-v"});  // claude's version
  CHECK(help_text().find("Everything else") != std::string::npos);
  for (const char* opt : {"--env", "--mount", "--git", "--ssh", "--aws", "--no-network", "--keyring",
                          "--remote-control", "--keep-env", "--chic", "--tmp", "--clear-tmp",
                          "--allow-protected-writes", "--debug", "--dry-run", "--exec",
                          "--no-clipboard", "--no-sandbox", "fix-apparmor", "doctor"}) {
    INFO(opt);
    CHECK(help_text().find(opt) != std::string::npos);
  }
}

TEST_CASE("commands: doctor, fix-apparmor (anywhere among blaude flags)") {
  CHECK(ok({"doctor"}).action == Action::Doctor);
  CHECK(ok({"--debug", "fix-apparmor"}).action == Action::FixApparmor);  // bash: a prompt
  CHECK(err({"doctor", "x"}).find("takes no arguments") != std::string::npos);
  // fix-apparmor takes the bwrap to write the profile for (how the sudo step gets the user's).
  CHECK(ok({"fix-apparmor", "/opt/b/bwrap"}).apparmor_bwrap == "/opt/b/bwrap");
  CHECK(ok({"fix-apparmor"}).apparmor_bwrap.empty());
  CHECK(err({"fix-apparmor", "bwrap"}).find("absolute path") != std::string::npos);
  CHECK(err({"fix-apparmor", "/a", "/b"}).find("at most") != std::string::npos);
  CHECK(ok({"-p", "doctor"}).action == Action::Run);
}

TEST_CASE("host bypass only for claude's own subcommands") {
  for (const char* sub : {"update", "install", "install-github-app"}) {
    INFO(sub);
    auto o = ok({"--git", sub, "--force"});
    CHECK(o.action == Action::HostBypass);
    CHECK(choose_command(o, true) == Args{"claude", sub, "--force"});
  }
  CHECK(ok({"--exec", "update"}).action == Action::Run);
  CHECK(ok({"--chic", "install"}).action == Action::Run);
  CHECK(choose_command(ok({"--chic", "install"}), true) ==
        Args{"claudechic", "--dangerously-skip-permissions", "install"});
  CHECK(ok({"-p", "update"}).action == Action::Run);
  CHECK(ok({"updates"}).action == Action::Run);
}

TEST_CASE("command choice follows the seed") {
  CHECK(choose_command(ok({}), true) == Args{"claude", "--dangerously-skip-permissions"});
  CHECK(choose_command(ok({}), false) == Args{"claude", "--dangerously-skip-permissions", "-p"});
  CHECK(choose_command(ok({"-c"}), false) == Args{"claude", "--dangerously-skip-permissions", "-c"});
  CHECK(choose_command(ok({"--chic", "-c"}), true) ==
        Args{"claudechic", "--dangerously-skip-permissions", "-c"});
  // --remote-control is consumed; claude still gets the skip flag.
  auto rcflag = ok({"--remote-control"});
  CHECK(rcflag.remote_control_mode());
  CHECK(choose_command(rcflag, true) == Args{"claude", "--dangerously-skip-permissions"});
  // The subcommand goes through untouched and without the skip flag, which claude rejects there.
  auto rcsub = ok({"remote-control", "--name", "x"});
  CHECK(rcsub.remote_control_subcommand);
  CHECK(rcsub.remote_control_mode());
  CHECK(choose_command(rcsub, true) == Args{"claude", "remote-control", "--name", "x"});
  CHECK_FALSE(ok({"-p", "remote-control"}).remote_control_mode());
}

TEST_CASE("shell_quote makes a pasteable line") {
  CHECK(shell_quote(Args{"claude", "-p", "it's a test", ""}) == "claude -p 'it'\\''s a test' ''");
  CHECK(shell_quote(Args{"a=b", "/x/y:z"}) == "a=b /x/y:z");
  CHECK(shell_quote(Args{"$HOME", "a;b"}) == "'$HOME' 'a;b'");
}

// Why the parser is hand-written (src/cli/parse.cpp): each case is one a declarative option
// library such as CLI11 cannot express, and each would break the drop-in promise.
TEST_CASE("cases a declarative parser cannot express", "[cli]") {
  // --exec takes the rest of the line verbatim, blaude's own option names included.
  auto e = ok({"--git", "--exec", "sh", "-c", "echo hi", "--git", "--dry-run", "-m", "x"});
  CHECK(e.git);
  CHECK_FALSE(e.dry_run);
  CHECK(e.mounts.empty());
  CHECK(e.exec == Args{"sh", "-c", "echo hi", "--git", "--dry-run", "-m", "x"});
  // --help is blaude's only before the first claude argument.
  CHECK(ok({"--help"}).action == Action::Help);
  auto mcp = ok({"mcp", "--help"});
  CHECK(mcp.action == Action::Run);
  CHECK(mcp.claude_args == Args{"mcp", "--help"});
  // Unknown options keep their places between known ones.
  auto mixed = ok({"-c", "--git", "--model", "opus", "--ssh", "-p", "hi"});
  CHECK(mixed.git);
  CHECK(mixed.ssh);
  CHECK(mixed.claude_args == Args{"-c", "--model", "opus", "-p", "hi"});
}

TEST_CASE("the workspace-path option takes host or seed") {
  CHECK(ok({"--workspace-path=seed"}).workspace_path == "seed");
  CHECK(ok({"--workspace-path", "host", "-c"}).workspace_path == "host");
  CHECK(ok({"-c"}).workspace_path.empty());
  CHECK(err({"--workspace-path=/workspaces"}) == "--workspace-path: '/workspaces' is not a layout");
}
