// The one place that sequences a session: read the host, decide (trust gate, environment,
// plan), report, prepare, supervise. Every step below returns here; nothing calls back up.
#include "app/run.hpp"

#include <unistd.h>

#include <cstdio>

#include "app/apparmor.hpp"
#include "app/audit.hpp"
#include "app/mount_litter.hpp"
#include "app/backend.hpp"
#include "app/doctor.hpp"
#include "inside/exec_shim.hpp"
#include "inside/shim_isolation.hpp"
#include "app/launch.hpp"
#include "app/network.hpp"
#include "inside/relay_main.hpp"
#include "net/netns.hpp"
#include "cli/command.hpp"
#include "common/file_io.hpp"
#include "common/log.hpp"
#include "common/path_search.hpp"
#include "common/shell_quote.hpp"
#include "sandbox/trust/gate.hpp"

namespace blaude::app {

namespace {

Outcome print_policy(const HostEnv& host, const cli::Options& o) {
  auto req = sandbox::trust::gate_request(host, o.trust_policy);
  auto r = sandbox::trust::load_policies(req);
  if (r.status != sandbox::trust::GateResult::Status::Proceed) return Failure{r.message, r.hint};
  std::fputs(sandbox::trust::format_policy_report(r.loaded, sandbox::trust::is_trusted(req, r.loaded)).c_str(),
             stdout);
  sandbox::Grants grants = r.loaded.grants;
  for (const auto& line : network_report(host_defaults(host, o), take_network_grants(grants),
                                         r.loaded.user.no_default_domains))
    std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace

Outcome run(const cli::Options& o) {
  const HostEnv host = HostEnv::read();
  log::init(host, o.debug);
  const std::vector<std::string> argv = cli::choose_command(o, host.stdin_tty);
  spdlog::info("blaude {} starting: {}", BLAUDE_VERSION, shell_quote(argv));
  if (o.print_policy) return print_policy(host, o);

  Decision d = o.no_sandbox ? decide_unsandboxed(host, o, argv) : decide_sandboxed(host, o, argv);
  if (auto* f = std::get_if<Failure>(&d)) return *f;
  report(std::get<Launch>(d), o);
  if (o.dry_run) return 0;
  if (auto f = prepare(std::get<Launch>(d))) return *f;
  // A session that never finished is audited first; when that changed a repository the plan
  // read, the plan is made again (the trust answer is recorded by now: nothing is asked twice).
  StartJournals journals;
  if (audit_orphans(host, o, std::get<Launch>(d), journals)) {
    spdlog::info("planning again: the audit of a session that did not finish changed the workspace");
    d = decide_sandboxed(host, o, argv);
    if (auto* f = std::get_if<Failure>(&d)) return *f;
    if (auto f = prepare(std::get<Launch>(d))) return *f;
  }
  const Launch& launch = std::get<Launch>(d);
  AuditSession audit = audit_begin(host, o, launch, std::move(journals));  // before the child can change anything
  // A deferred plan's scan ends after bwrap's spawn: the repositories' snapshot is taken then,
  // still before anything in the sandbox runs (supervise's before_command).
  int rc = supervise(
      host, o, launch, [&audit](const sandbox::bwrap::WorkspaceScan& ws) { audit_before(audit, ws); },
      [&audit](pid_t pid) { audit_live(audit, pid); });
  audit_end(audit);  // the sandbox is gone, the terminal restored
  // The empty dirs made as mount points go too (mount_litter.hpp), unless another session runs.
  if (const auto made = made_mount_points(launch.plan); !made.empty()) {
    const bool others = other_sessions_running(audit.journal_root, audit.journal.name);
    for (const auto& p : remove_mount_points(made, ::geteuid(), others)) spdlog::info("removed the mount point {}", p);
    if (others) spdlog::info("{} mount points left: another session runs", made.size());
  }
  spdlog::info("exit code {}", rc);
  return rc;
}

Outcome host_bypass(const cli::Options& o) {
  const HostEnv host = HostEnv::read();
  auto claude = find_executable("claude", host.get("PATH"));
  if (!claude)
    return Failure{"claude is not installed or not in PATH",
                   "Install from: https://docs.anthropic.com/en/docs/claude-code"};
  auto argv = cli::choose_command(o, true);
  if (o.dry_run) {
    std::fprintf(stderr, "%s\n", shell_quote(argv).c_str());
    return 0;
  }
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  ::execv(claude->c_str(), cargv.data());
  return Failure{*claude + ": " + errno_text(), "", 126};
}

Outcome show_help() {
  std::fputs(help_text(HostEnv::read()).c_str(), stdout);
  return 0;
}

// The relay wrapper's CMD is `kSandboxSelf __exec[-pty] CMD…` (the shim gives the 127/126 the README
// promises): run the shim in the wrapper's own process instead of exec'ing blaude once more,
// so proxy mode starts CMD with as many execs as the default mode.
namespace {
int exec_in_process(std::vector<std::string>& cmd) {
  bool shim = cmd.size() >= 2 && cmd[0] == sandbox::kSandboxSelf;
  bool on_pty = shim && cmd[1] == inside::kExecShimOnPty;
  if (!shim || (!on_pty && cmd[1] != inside::kExecShim)) return inside::exec_command_path(cmd);
  std::vector<char*> argv;
  for (size_t i = 2; i < cmd.size(); ++i) argv.push_back(cmd[i].data());
  argv.push_back(nullptr);
  return inside::exec_shim(int(argv.size() - 1), argv.data(), on_pty);
}
}  // namespace

int net_relay(const std::vector<std::string>& args) { return inside::relay_main(args, exec_in_process); }

// The same for the default mode's wait for its namespace (net/netns.hpp).
int net_attach(const std::vector<std::string>& args) { return net::netns_attach_main(args, exec_in_process); }

Outcome run_doctor() {
  const HostEnv host = HostEnv::read();
  auto lines = doctor::report(doctor::probe(host));
  for (const auto& l : lines) std::printf("%s\n", l.text.c_str());
  // Which network a plain `blaude` gets here (the policies may select proxy mode).
  auto loaded = sandbox::trust::load_policies(sandbox::trust::gate_request(host, false));
  sandbox::Grants grants = loaded.loaded.grants;
  for (const auto& l : network_report(host_defaults(host, cli::Options{}), take_network_grants(grants),
                                      loaded.loaded.user.no_default_domains))
    std::printf("%s\n", l.c_str());
  return doctor::exit_code(lines);
}

Outcome run_fix_apparmor(const cli::Options& o) {
  const HostEnv host = HostEnv::read();
  if (host_backend(host).backend == Backend::Seatbelt)
    return Failure{"fix-apparmor is for Linux hosts whose AppArmor blocks bubblewrap",
                   "macOS has no AppArmor; `blaude doctor` checks the Seatbelt sandbox instead.", 2};
  std::string bwrap = o.apparmor_bwrap;
  if (bwrap.empty()) {
    bwrap = find_executable("bwrap", host.get("PATH"), RelativeEntries::Skip).value_or("");
  } else if (::access(bwrap.c_str(), X_OK) != 0) {
    return usage("fix-apparmor: " + bwrap + " is not an executable bwrap");
  }
  auto facts = apparmor::probe(host, bwrap);
  auto verdict = apparmor::decide(facts);
  if (verdict == apparmor::Verdict::NeedsRoot) {
    if (auto argv = apparmor::sudo_argv(facts); !argv.empty()) {
      // sudo asks for the password on the terminal; then the same blaude, as root, installs.
      std::fprintf(stderr, "blaude: fix-apparmor needs root; running: %s\n", shell_quote(argv).c_str());
      std::fflush(stderr);
      std::vector<char*> cargv;
      for (auto& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      ::execv(argv[0].c_str(), cargv.data());
      return Failure{"cannot run " + argv[0] + ": " + errno_text(), "Run as root: " + apparmor::root_command(facts)};
    }
  }
  if (verdict == apparmor::Verdict::Install)
    std::printf("Installing AppArmor profile for %s...\n", facts.bwrap_path.c_str());
  auto out = verdict == apparmor::Verdict::Install ? apparmor::install(facts) : apparmor::describe(verdict, facts);
  if (out.failure) return *out.failure;
  for (const auto& l : out.lines) std::printf("%s\n", l.c_str());
  return out.exit_code;
}

}  // namespace blaude::app
