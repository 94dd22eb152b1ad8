// Wiring: parse the command line, pick the action, check the host, decide what runs and with
// which environment, then hand it to the PTY supervisor. Decisions live in the pure parts
// (cli::parse, cli::choose_command, sandbox::filter_env, ...); this file only sequences them.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "asciinema/guard.hpp"
#include "cli/apparmor.hpp"
#include "cli/claude_settings.hpp"
#include "cli/command.hpp"
#include "cli/doctor.hpp"
#include "cli/host.hpp"
#include "cli/parse.hpp"
#include "common/log.hpp"
#include "osc52/filter.hpp"
#include "pty/supervisor.hpp"
#include "sandbox/bwrap_launch.hpp"
#include "sandbox/env_policy.hpp"
#include "sandbox/trust_gate.hpp"

extern char** environ;

using namespace blaude;

namespace {

std::string getenv_str(const char* k) {
  const char* v = std::getenv(k);
  return v ? v : "";
}

std::vector<std::string> host_environ() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

void print_lines(const std::vector<std::string>& lines, FILE* to = stderr) {
  for (const auto& l : lines) std::fprintf(to, "%s\n", l.c_str());
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "blaude: %s\nTry 'blaude --help' for the options.\n", msg.c_str());
  return 2;
}

// The seed's messages for a missing prerequisite; exit 1 before anything changes on the host.
int missing_bwrap() {
  print_lines({"blaude: bubblewrap (bwrap) is not installed",
               "Install with: apt install bubblewrap  OR  dnf install bubblewrap"});
  return 1;
}
int missing_program(const std::string& name) {
  if (name == "claude") {
    print_lines({"blaude: claude is not installed or not in PATH",
                 "Install from: https://docs.anthropic.com/en/docs/claude-code"});
  } else {
    print_lines({"blaude: " + name + " is not installed or not in PATH",
                 name == "claudechic" ? "Install with: uv tool install claudechic"
                                      : "Check the name, or install it first."});
  }
  return 1;
}

int doctor_action() {
  auto lines = cli::doctor::report(cli::doctor::probe());
  for (const auto& l : lines) std::printf("%s\n", l.text.c_str());
  return cli::doctor::exit_code(lines);
}

int fix_apparmor_action() {
  std::string bwrap = cli::host::find_in_path("bwrap", getenv_str("PATH")).value_or("");
  auto facts = cli::apparmor::probe(bwrap);
  auto verdict = cli::apparmor::decide(facts);
  cli::apparmor::Outcome out = verdict == cli::apparmor::Verdict::Install
                                   ? (std::printf("Installing AppArmor profile for %s...\n",
                                                  facts.bwrap_path.c_str()),
                                      cli::apparmor::install(facts))
                                   : cli::apparmor::describe(verdict, facts);
  print_lines(out.lines, out.to_stderr ? stderr : stdout);
  return out.exit_code;
}

// update / install / install-github-app: claude's own subcommands that change files the
// sandbox keeps read-only, so they run on the host with the host environment, as with claude.
int host_bypass(const cli::Options& o) {
  auto claude = cli::host::find_in_path("claude", getenv_str("PATH"));
  if (!claude) return missing_program("claude");
  auto argv = cli::choose_command(o, true);
  if (o.dry_run) {
    std::fprintf(stderr, "%s\n", cli::shell_quote(argv).c_str());
    return 0;
  }
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  ::execv(claude->c_str(), cargv.data());
  std::perror("blaude: claude");
  return 126;
}

// Warnings about Claude's own settings, before the session takes the terminal.
void settings_warnings(const cli::Options& o, const std::vector<std::string>& argv) {
  bool skips = false;
  for (const auto& a : argv) skips = skips || a == cli::kSkipPermissions;
  if (!skips) return;
  std::string home = getenv_str("HOME");
  char cwd[4096];
  std::string workspace = ::getcwd(cwd, sizeof cwd) ? cwd : ".";
  auto files = cli::settings_files(home, getenv_str("CLAUDE_CONFIG_DIR"), workspace, o.tmp,
                                   cli::list_json_files(std::string(cli::kManagedDir) +
                                                        "/managed-settings.d"));
  if (auto blocker = cli::find_bypass_blocker(files)) print_lines(cli::bypass_warning(*blocker));
}

int run(const cli::Options& o) {
  std::string log_path = log::init(o.debug, !o.dry_run);
  const bool stdin_tty = ::isatty(STDIN_FILENO) == 1;
  std::vector<std::string> argv = cli::choose_command(o, stdin_tty);
  const std::string host_path = getenv_str("PATH");
  const std::vector<std::string> host_env = host_environ();
  spdlog::info("blaude {} starting: {}", BLAUDE_VERSION, cli::shell_quote(argv));

  // The project policy (.blaude / .xclaude) and the user's: trust-gated before anything starts.
  const bool gated = !o.no_sandbox && !o.tmp;
  sandbox::GateRequest policy_req;
  if (o.print_policy || gated) policy_req = sandbox::gate_request_from_host(o.trust_policy);
  if (o.print_policy) {
    auto r = sandbox::load_policies(policy_req);
    if (r.status != sandbox::GateResult::Status::Proceed) {
      print_lines({"blaude: " + r.message, r.hint});
      return 1;
    }
    std::fputs(sandbox::format_policy_report(r.loaded, sandbox::is_trusted(policy_req, r.loaded)).c_str(),
               stdout);
    return 0;
  }

  // 1. Prerequisites, before anything on the host changes.
  std::string bwrap;
  if (!o.no_sandbox) {
    auto b = cli::host::find_in_path("bwrap", host_path);
    if (!b) return missing_bwrap();
    bwrap = *b;
  }
  if (o.exec.empty() && !cli::host::find_in_path(argv[0], host_path)) {
    return missing_program(argv[0]);
  }

  // 2. Host-side preparation and notices (not under --dry-run, which changes nothing).
  // Claude's onboarding flags only when claude is what runs: `--exec bash` leaves
  // ~/.claude.json alone (and does not pay for parsing it before its first output).
  const std::string& prog = argv[0];
  const bool runs_claude = o.exec.empty() || prog == "claude" || prog.ends_with("/claude");
  auto prepare_host = [&](const std::vector<std::string>& notes) {
    print_lines(notes);
    settings_warnings(o, argv);
    if (!runs_claude) return;
    for (const auto& f : cli::onboarding_files(getenv_str("HOME"), getenv_str("CLAUDE_CONFIG_DIR")))
      print_lines(cli::ensure_onboarding_file(f));
  };
  std::vector<std::string> notes = sandbox::env_notices(host_env, o);

  sandbox::Grants grants;
  if (gated) {
    // --dry-run neither asks nor records trust: it changes nothing.
    auto g = o.dry_run ? sandbox::load_policies(policy_req) : sandbox::run_trust_gate(policy_req);
    if (g.status != sandbox::GateResult::Status::Proceed) {
      std::vector<std::string> lines{"blaude: " + g.message};
      if (!g.hint.empty()) lines.push_back(g.hint);
      print_lines(lines);
      return 1;
    }
    if (!g.note.empty()) notes.push_back(g.note);
    grants = std::move(g.loaded.grants);
  }

  // 3. The session: declared before it, the recorder guard resumes a paused asciinema after it.
  asciinema::Guard recorder(o.no_asciinema);
  pty::SuperviseOptions so;
  so.endpoint = [&recorder] { return recorder.endpoint(); };
  // OSC 52 copies go to the host clipboard; with no usable tool the bytes pass untouched.
  if (auto clip = osc52::configure(o.no_clipboard))
    so.make_filter = [c = *clip](uv_loop_t* loop) { return osc52::make_filter(loop, c); };

  int rc;
  if (!o.no_sandbox) {
    if (auto w = cli::apparmor::startup_warning(cli::apparmor::probe(bwrap)); !w.empty())
      notes.insert(notes.end(), w.begin(), w.end());
    if (!o.dry_run) prepare_host(notes);
    rc = sandbox::run_sandboxed(o, [&](const sandbox::HostFacts& f) {
      sandbox::EnvContext ctx;
      ctx.sandboxed = true;
      ctx.home = f.home;
      ctx.user = f.user;
      ctx.path = sandbox::sandbox_path(f);
      ctx.uid = sandbox::sandbox_uid(f);
      if (!f.nvm_node_bin.empty()) ctx.tool_env.emplace_back("NVM_DIR", f.nvm_dir);
      sandbox::PlanInputs in;
      in.env = sandbox::filter_env(host_env, o, ctx);
      in.command = argv;
      in.grants = grants;
      return in;
    }, so);
  } else {
    pty::Command cmd;
    sandbox::EnvContext ctx;
    ctx.sandboxed = false;
    cmd.argv = argv;
    cmd.env = sandbox::to_environ(sandbox::filter_env(host_env, o, ctx));
    notes.insert(notes.begin(), "blaude: --no-sandbox: no sandbox is active; " + argv[0] +
                                    " runs with your full access to this machine");
    if (o.debug) std::fprintf(stderr, "\033[2m%s\033[0m\n", cli::shell_quote(cmd.argv).c_str());
    if (o.dry_run) return 0;
    prepare_host(notes);
    spdlog::info("launching: {}", cli::shell_quote(cmd.argv));
    rc = pty::supervise(cmd, so);
  }
  spdlog::info("exit code {}", rc);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = cli::parse(args);
    if (auto* err = std::get_if<cli::UsageError>(&parsed)) return usage_error(err->message);
    const auto& o = std::get<cli::Options>(parsed);
    switch (o.action) {
      case cli::Action::Help:
        std::fputs(cli::help_text().c_str(), stdout);
        return 0;
      case cli::Action::Version:
        std::printf("blaude %s\n", BLAUDE_VERSION);
        return 0;
      case cli::Action::Doctor:
        return doctor_action();
      case cli::Action::FixApparmor:
        return fix_apparmor_action();
      case cli::Action::HostBypass:
        return host_bypass(o);
      case cli::Action::Run:
        break;
    }
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blaude: internal error: %s\n", e.what());
    return 1;
  }
}
