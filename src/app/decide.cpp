// Deciding a launch: everything is read and judged here, nothing is written. A Failure from any
// step leaves the host exactly as it was.
#include <spdlog/spdlog.h>

#include <chrono>

#include "app/apparmor.hpp"
#include "app/audit.hpp"
#include "app/claude_settings.hpp"
#include "app/launch.hpp"
#include "inside/clip_standin.hpp"
#include "cli/command.hpp"
#include "cli/parse.hpp"
#include "common/file_io.hpp"
#include "common/sha256.hpp"

#include <sys/stat.h>
#include "common/path_search.hpp"
#include "net/mode.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/bwrap/plan/plan.hpp"
#include "sandbox/env_policy.hpp"
#include "sandbox/request.hpp"

namespace blaude::app {

namespace bw = sandbox::bwrap;

// The upstream servers systemd-resolved's stub (127.0.0.53) forwards to.
constexpr const char* kResolvedUpstream = "/run/systemd/resolve/resolv.conf";

sandbox::EnvRules env_rules(const cli::Options& o) {
  sandbox::EnvRules r;
  r.keep_env = o.keep_env;
  r.remote_control = o.remote_control_mode();
  r.git = o.git;
  r.ssh = o.ssh;
  r.keyring = o.keyring;
  r.no_network = o.no_network;
  r.user_env = o.env;
  return r;
}

sandbox::SandboxRequest sandbox_request(const cli::Options& o, const std::vector<std::string>& argv,
                                        const std::string& home) {
  sandbox::SandboxRequest r;
  r.command = argv;
  for (const auto& m : o.mounts) r.mounts.push_back({cli::expand_home(m.path, home), m.rw});
  r.git = o.git;
  r.ssh = o.ssh;
  r.aws = o.aws;
  r.keyring = o.keyring;
  r.no_network = o.no_network;
  r.tmp = o.tmp;
  r.clear_tmp = o.clear_tmp;
  r.allow_protected_writes = o.allow_protected_writes;
  r.nested_sandbox = o.nested_sandbox;
  r.seed_workspace = o.workspace_path == "seed";
  return r;
}

LimitSettings limit_settings(const cli::Options& o, LimitSettings from_policy) {
  LimitSettings s = std::move(from_policy);
  if (o.memory_max) s.memory_max = *o.memory_max, s.memory_from = "--memory-max";
  if (o.pids_max) s.pids_max = *o.pids_max, s.pids_from = "--pids-max";
  if (o.no_limits) s.off = true, s.off_from = "--no-limits";
  return s;
}

// The seed's messages for a program that is not there.
Failure missing_program(const std::string& name) {
  if (name == "claude")
    return {"claude is not installed or not in PATH", "Install from: https://docs.anthropic.com/en/docs/claude-code"};
  return {name + " is not installed or not in PATH",
          name == "claudechic" ? "Install with: uv tool install claudechic" : "Check the name, or install it first."};
}

namespace {

bool runs_claude(const cli::Options& o, const std::vector<std::string>& argv) {
  const std::string& prog = argv.front();
  return o.exec.empty() || prog == "claude" || prog.ends_with("/claude");
}

}  // namespace

// What both modes add after the environment's notices: Claude's own settings that would block
// bypass mode, and (when claude runs) the onboarding files to update.
void claude_checks(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv, Launch& l) {
  bool skips = false;
  for (const auto& a : argv) skips = skips || a == cli::kSkipPermissions;
  if (skips) {
    auto files = settings_files(host.home, host.get("CLAUDE_CONFIG_DIR"), host.cwd.empty() ? "." : host.cwd,
                                o.tmp, list_json_files(std::string(kManagedDir) + "/managed-settings.d"));
    if (auto blocker = find_bypass_blocker(files)) {
      auto w = bypass_warning(*blocker);
      l.notices.insert(l.notices.end(), w.begin(), w.end());
    }
  }
  // `--exec bash` leaves ~/.claude.json alone (and does not pay for parsing it).
  if (runs_claude(o, argv)) l.onboarding_files = onboarding_files(host.home, host.get("CLAUDE_CONFIG_DIR"));
}

// Conversations held under the seed's /workspaces/<dir>: said once a project (a marker in
// blaude's cache, which the sandbox cannot see), by the prepare step's hand.
void seed_history(const bw::HostFacts& facts, Launch& l) {
  const std::string marker = facts.home + "/.cache/blaude/seed-history-" + sha256_hex(facts.cwd).substr(0, 32);
  struct stat st;
  if (facts.home.empty() || ::lstat(marker.c_str(), &st) == 0) return;
  auto lines = seed_history_notice(bw::claude_config_dir(facts), facts.cwd, bw::workspace_dest(facts.cwd));
  if (lines.empty()) return;
  l.notices.insert(l.notices.end(), lines.begin(), lines.end());
  using HP = sandbox::HostPrep;
  for (const std::string& d : {facts.home + "/.cache", facts.home + "/.cache/blaude"})
    l.plan.preparations.push_back({HP::Kind::MakeDir, d, 0700, "", false, "blaude's cache"});
  l.plan.preparations.push_back({HP::Kind::CreateFile, marker, 0600, "", false,
                                 "the note on conversations under /workspaces is shown once"});
}

std::optional<Failure> trust_gate(const HostEnv& host, const cli::Options& o, sandbox::SandboxRequest& req,
                                  Launch& l, std::string* project_file, std::string* no_default_domains) {
  // Not under --tmp, where no project is open.
  if (o.tmp) return std::nullopt;
  auto gate = sandbox::trust::gate_request(host, o.trust_policy);
  gate.workspace_path = o.workspace_path;
  auto g = o.dry_run ? sandbox::trust::load_policies(gate) : sandbox::trust::run_trust_gate(gate);
  if (g.status != sandbox::trust::GateResult::Status::Proceed) return Failure{g.message, g.hint};
  if (!g.note.empty()) l.notices.push_back(g.note);
  req.grants = std::move(g.loaded.grants);
  if (project_file) *project_file = g.loaded.project_file;
  if (no_default_domains) *no_default_domains = g.loaded.user.no_default_domains;
  if (!g.loaded.user.nested_sandbox.empty()) req.nested_sandbox = true;
  l.ssh_policy.agent_origin = g.loaded.user.ssh_agent;
  for (const auto& k : g.loaded.user.ssh_keys) l.ssh_policy.keys.emplace_back(k.key, k.origin);
  l.ssh_policy.clipboard_paste = g.loaded.user.clipboard_paste;
  l.ssh_policy.clipboard_paste_origin = g.loaded.user.clipboard_paste_origin;
  req.seed_workspace = sandbox::trust::seed_workspace(o.workspace_path, g.loaded);
  const auto& u = g.loaded.user;
  if (u.memory_max) l.limit_settings.memory_max = *u.memory_max, l.limit_settings.memory_from = "policy";
  if (u.pids_max) l.limit_settings.pids_max = *u.pids_max, l.limit_settings.pids_from = "policy";
  if (!u.no_limits.empty()) l.limit_settings.off = true, l.limit_settings.off_from = u.no_limits;
  if (g.to_record) {
    l.gate = gate;
    l.trust_answer = std::move(g.to_record);
  }
  return std::nullopt;
}

Decision decide_sandboxed(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv) {
  if (BackendChoice b = host_backend(host); b.backend == Backend::Seatbelt)
    return decide_seatbelt(host, o, argv, b.planned_only);
  using clock = std::chrono::steady_clock;
  Launch l;
  l.sandboxed = true;
  sandbox::EnvRules rules = env_rules(o);
  l.notices = sandbox::env_notices(host.environ, rules);
  sandbox::SandboxRequest req = sandbox_request(o, argv, host.home);

  const auto t0 = clock::now();
  // The workspace scan overlaps bwrap's start (sandbox/bwrap/plan/deferred.hpp), except where the
  // whole plan is shown before anything starts (--dry-run, --debug).
  bw::HostFacts facts = bw::HostFacts::probe(host, req, /*defer_scan=*/!o.dry_run && !o.debug);
  const auto t1 = clock::now();
  // Prerequisites first: no question is asked for a launch that cannot happen.
  if (facts.bwrap.empty())
    return Failure{"bubblewrap (bwrap) is not installed", "Install with: apt install bubblewrap  OR  dnf install bubblewrap"};
  if (o.exec.empty() && facts.exe.found.empty()) return missing_program(argv.front());

  // The project policy (.blaude / .xclaude) and the user's, trust-gated.
  sandbox::Grants net_grants;
  std::string no_default_domains;
  if (auto f = trust_gate(host, o, req, l, nullptr, &no_default_domains)) return *f;
  if (!o.tmp) {
    net_grants = take_network_grants(req.grants);  // destinations go to the proxy, paths to bwrap
    facts.probe_grants(req.grants);
  }
  auto aa = apparmor::startup_warning(apparmor::probe(host, facts.bwrap));
  l.notices.insert(l.notices.end(), aa.begin(), aa.end());
  claude_checks(host, o, argv, l);

  sandbox::EnvContext ctx;
  ctx.sandboxed = true;
  ctx.home = facts.home;
  ctx.user = facts.user;
  ctx.path = bw::sandbox_path(facts);
  ctx.uid = bw::sandbox_uid(facts);
  if (!facts.nvm_node_bin.empty()) ctx.tool_env.emplace_back("NVM_DIR", facts.nvm_dir);
  if (const std::string sock = facts.env_or("SSH_AUTH_SOCK");
      o.ssh && !sock.empty() && facts.at(sock).kind == bw::Kind::Socket)
    ctx.ssh_auth_sock = sock;
  // The signing-only agent: SSH_AUTH_SOCK names its socket inside, the way --ssh names the real one.
  // The clipboard stand-ins (every session): their directory first on PATH.
  ServicesDecision sd =
      decide_services(host, o, l.ssh_policy, control_runtime_dir(host.get("XDG_RUNTIME_DIR")), true);
  if (sd.failure) return *sd.failure;
  if (sd.launch) {
    l.services = std::move(sd.launch);
    req.services_bwrap_args = std::move(sd.bwrap_args);
    if (!sd.ssh_auth_sock.empty()) {
      rules.ssh = true;
      ctx.ssh_auth_sock = sd.ssh_auth_sock;
    }
  }
  if (sd.standins) ctx.path = std::string(inside::kStandinDir) + ":" + ctx.path;
  sandbox::EnvList env = sandbox::filter_env(host.environ, rules, ctx);
  NetDecision nd = decide_network(o, std::move(net_grants), no_default_domains, env, req, l.notices,
                                  netns_facts(host, facts.ipc.landlock_abi, facts.ipc.bwrap_setuid));
  if (nd.failure) return *nd.failure;
  l.net = std::move(nd.launch);
  l.netns_pasta = std::move(nd.netns_pasta);
  // The stand-ins are links to the binary the sandbox starts its command with (plan_seed.cpp's
  // shimmed(): blaude-exec when installed, blaude's own in proxy mode, which binds it).
  if (sd.standins) {
    auto a = standin_args(!req.proxy && !facts.shim_exe.empty() ? sandbox::kSandboxShim : sandbox::kSandboxSelf);
    req.services_bwrap_args.insert(req.services_bwrap_args.end(), a.begin(), a.end());
  }
  // Transparent capture's resolv.conf also where the host's is a link (add_resolv binds at its target).
  if (l.net && req.proxy && !req.proxy->data.empty()) facts.resolv_content = net::capture_resolv_conf();
  if (!l.netns_pasta.empty())
    if (std::string r = net::netns_resolv(facts.resolv_content, read_small_file(kResolvedUpstream).value_or(""));
        !r.empty()) {
      spdlog::info("net: the sandbox's resolv.conf names {}'s servers (the host's stub is out of its reach)",
                   kResolvedUpstream);
      facts.resolv_content = r;
    }
  // Where the protect helper mounts the protections, they are left to finish after bwrap's spawn
  // (deferred.hpp), even when the workspace scan is done by now (a small workspace): the scan of
  // the user's own /tmp sockets and the protections' layout then run while bwrap starts, not
  // before it (2 ms of a small repo's start with Claude Code's dirs in /tmp, measured). Without
  // the helper they are bwrap options: the scan is waited for here.
  // BLAUDE_SCAN=sync (no thread: HostFacts::probe) makes the plan whole; =defer is the default.
  if (facts.ws_pending && !facts.inner_mounts) bw::wait_for_scan(facts);
  try {
    l.plan = bw::plan(req, facts, env);
  } catch (const bw::PlanError& e) {
    return Failure{e.what(), e.hint};
  }
  if (!o.tmp && !req.seed_workspace && runs_claude(o, argv)) seed_history(facts, l);
  const auto t2 = clock::now();
  using us = std::chrono::microseconds;
  spdlog::info("sandbox: probe {} us ({}), plan {} us, {} bwrap args",
               std::chrono::duration_cast<us>(t1 - t0).count(),
               l.plan.deferred ? "workspace scan running"
                               : std::to_string(facts.ws.hits.size() + facts.ws.links.size()) +
                                     " workspace entries of interest",
               std::chrono::duration_cast<us>(t2 - t1).count(), l.plan.argv.size());
  l.bwrap = facts.bwrap;
  l.limits = bw::plan_limits(limit_settings(o, l.limit_settings));
  if (auto w = prior_walk(facts.ws)) l.prior_walks.push_back(std::move(*w));
  return l;
}

Decision decide_unsandboxed(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv) {
  Launch l;
  l.sandboxed = false;
  if (o.exec.empty() && !find_executable(argv.front(), host.get("PATH"))) return missing_program(argv.front());
  const sandbox::EnvRules rules = env_rules(o);
  l.notices = sandbox::env_notices(host.environ, rules);
  l.notices.insert(l.notices.begin(), "blaude: --no-sandbox: no sandbox is active; " + argv.front() +
                                          " runs with your full access to this machine");
  claude_checks(host, o, argv, l);
  sandbox::EnvContext ctx;
  ctx.sandboxed = false;
  l.child_env = sandbox::to_environ(sandbox::filter_env(host.environ, rules, ctx));
  l.plan.argv = argv;
  return l;
}

}  // namespace blaude::app
