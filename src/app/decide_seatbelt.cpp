// Deciding a Seatbelt (macOS) launch: the host facts, the trust gate, the environment, the
// profile and the sandbox-exec command. Reads only; a Failure leaves the host as it was.
#include <spdlog/spdlog.h>

#include <chrono>

#include "app/launch.hpp"
#include "sandbox/env_policy.hpp"
#include "sandbox/seatbelt/context.hpp"
#include "sandbox/seatbelt/host.hpp"
#include "sandbox/seatbelt/launch.hpp"
#include "sandbox/seatbelt/profile.hpp"
#include "sandbox/seatbelt/workspace.hpp"
#include "common/file_io.hpp"

namespace blaude::app {

namespace sb = sandbox::seatbelt;

namespace {

// The environment inside: the seed's policy over the host's own paths (Seatbelt remaps nothing,
// so HOME, PATH and the tool homes are the host's), TMPDIR the validated per-user dir.
sandbox::EnvList seatbelt_env(const HostEnv& host, const cli::Options& o, const sb::SeatbeltHost& facts,
                              const sb::SeatbeltDecision& dec) {
  sandbox::EnvContext ctx;
  ctx.sandboxed = true;
  ctx.home = host.home;
  ctx.user = host.user;
  ctx.path = host.get("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
  ctx.uid = host.uid;
  if (o.ssh && facts.ssh_sock.socket) ctx.ssh_auth_sock = facts.ssh_sock.path;
  sandbox::EnvList env = sandbox::filter_env(host.environ, env_rules(o), ctx);
  auto set = [&](const std::string& k, const std::string& v) {
    for (auto& kv : env)
      if (kv.first == k) {
        kv.second = v;
        return;
      }
    env.emplace_back(k, v);
  };
  auto unset = [&](const std::string& k) { std::erase_if(env, [&](const auto& kv) { return kv.first == k; }); };
  // Linux's sandbox places; on macOS they would name dirs that do not exist, or override the
  // user's own CARGO_HOME/GOPATH.
  unset("XDG_RUNTIME_DIR");
  for (const char* k : {"GOPATH", "CARGO_HOME"}) {
    std::string v = host.get(k);
    if (v.empty()) unset(k);
    else set(k, v);
  }
  if (!dec.tmpdir.empty()) set("TMPDIR", dec.tmpdir);
  else unset("TMPDIR");
  for (const auto& [k, v] : o.env) set(k, v);  // --env stays last, as on Linux
  return env;
}

}  // namespace

Decision decide_seatbelt(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv,
                         bool planned_only) {
  using clock = std::chrono::steady_clock;
  Launch l;
  l.sandboxed = true;
  l.backend = Backend::Seatbelt;
  l.planned_only = planned_only;
  l.tty_token = sb::kTtyToken;
  l.notices = sandbox::env_notices(host.environ, env_rules(o));
  l.notices.insert(l.notices.begin(), kSeatbeltUntried);
  if (planned_only && !o.dry_run)
    return Failure{"BLAUDE_TEST_BACKEND=seatbelt: the macOS backend cannot run on this host",
                   "It plans and prints a macOS launch for --dry-run only.", 2};
  if (o.ssh_agent)
    return Failure{"--ssh-agent is not available with the macOS (Seatbelt) sandbox yet",
                   "Use --ssh there (your whole agent and ~/.ssh), or run without either."};
  sandbox::SandboxRequest req = sandbox_request(o, argv);

  const auto t0 = clock::now();
  const sb::SeatbeltHost probed = sb::SeatbeltHost::probe(host, req);
  const auto t1 = clock::now();
  // Prerequisites first: no question is asked for a launch that cannot happen.
  const std::string sandbox_exec = planned_only ? std::string(sb::kSandboxExec) : probed.sandbox_exec;
  if (sandbox_exec.empty())
    return Failure{std::string("sandbox-exec not found at ") + sb::kSandboxExec,
                   "blaude needs macOS's sandbox-exec; it will not run Claude unsandboxed (use --no-sandbox "
                   "to do that deliberately)."};
  if (o.exec.empty() && probed.program_found.empty()) return missing_program(argv.front());

  if (!o.allow_domains.empty() || !o.publish.empty())
    return Failure{"--allow-domain and --publish (proxy mode) are Linux-only",
                   "The macOS backend has no egress proxy yet: its network is open, or loopback with --no-network.", 2};
  std::string project_file;
  if (auto f = trust_gate(host, o, req, l, &project_file)) return *f;
  for (const auto& g : req.grants)
    if (g.access == sandbox::Access::Net)
      return Failure{"the policy's allow-domain lines (proxy mode) are Linux-only: " + g.origin,
                     "The macOS backend has no egress proxy yet; remove them to run here."};
  // Seatbelt remaps no path: the project is always at its own (the host layout).
  if (req.seed_workspace) {
    if (o.workspace_path == "seed")
      return Failure{"--workspace-path=seed is Linux-only",
                     "The macOS backend cannot move the project: it is at its own path. Leave the option out.", 2};
    l.notices.push_back("workspace-path seed (a policy file): the macOS backend keeps the project at its own path");
  }
  claude_checks(host, o, argv, l);

  // The other dirs the sandbox may write get the workspace's protections too: a repository
  // opened with -m DIR:rw or an allow-write line must not have writable hooks. (Not the caches
  // a toolchain opens: the tools do not run git hooks there.)
  sb::SeatbeltHost facts = probed;
  if (!o.allow_protected_writes) {
    std::vector<std::string> roots;
    for (size_t i = 0; i < req.mounts.size() && i < facts.mounts.size(); ++i)
      if (req.mounts[i].rw && facts.mounts[i].exists()) roots.push_back(facts.mounts[i].real);
    for (const auto& g : req.grants)
      if (g.access == sandbox::Access::Write && !g.origin.starts_with("tool ") && is_dir(g.path)) roots.push_back(g.path);
    auto more = sb::scan_writable_roots(roots, facts.home_real, host.get("XDG_CONFIG_HOME"));
    facts.protect.insert(facts.protect.end(), more.protect.begin(), more.protect.end());
    facts.warnings.insert(facts.warnings.end(), more.warnings.begin(), more.warnings.end());
  }

  auto made = sb::make_context(facts, req, host.stdio_tty(), sb::kTtyToken, project_file);
  if (auto* e = std::get_if<sb::SeatbeltPlanError>(&made)) return Failure{e->what, e->hint};
  const auto& dec = std::get<sb::SeatbeltDecision>(made);
  std::string profile;
  try {
    profile = sb::seatbelt_profile(req.grants, dec.ctx);
  } catch (const sb::SeatbeltError& e) {
    return Failure{std::string("cannot express the sandbox profile: ") + e.what(),
                   "A path the sandbox needs has a character Seatbelt profiles cannot hold safely."};
  }
  auto launch = sb::seatbelt_launch(sandbox_exec, profile, argv);
  if (auto* e = std::get_if<sb::SeatbeltPlanError>(&launch)) return Failure{e->what, e->hint};
  l.plan = std::get<sandbox::LaunchPlan>(launch);
  l.plan.notes = dec.notes;
  l.plan.warnings = dec.warnings;
  l.plan.writable_dirs = sb::audit_dirs(dec.ctx, req.grants);  // the post-session audit's roots
  if (planned_only)
    l.plan.notes.push_back("BLAUDE_TEST_BACKEND=seatbelt: a macOS launch planned on a host without "
                           "sandbox-exec; printed, never started");
  l.child_env = sandbox::to_environ(seatbelt_env(host, o, facts, dec));
  l.cwd = dec.cwd;
  const auto t2 = clock::now();
  using us = std::chrono::microseconds;
  spdlog::info("seatbelt: probe {} us ({} protected paths), plan {} us, profile {} bytes",
               std::chrono::duration_cast<us>(t1 - t0).count(), dec.ctx.protect.size(),
               std::chrono::duration_cast<us>(t2 - t1).count(), profile.size());
  return l;
}

}  // namespace blaude::app
