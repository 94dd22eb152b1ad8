#include "sandbox/bwrap_launch.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <system_error>

#include "pty/supervisor.hpp"
#include "sandbox/bwrap_features.hpp"
#include "sandbox/bwrap_format.hpp"
#include "sandbox/host_scan.hpp"
#include "sandbox/host_tools.hpp"

namespace blaude::sandbox {

namespace {

UniqueFd memfd_with(const std::string& name, const std::string& content) {
  // Close-on-exec like every other descriptor of blaude's (clipboard helpers must not inherit
  // it); the supervisor clears the flag in bwrap's process only, for Command::keep_fds.
  UniqueFd fd(::memfd_create(name.c_str(), MFD_CLOEXEC));
  if (!fd) throw std::system_error(errno, std::generic_category(), "memfd_create");
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "write memfd");
    off += size_t(n);
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

}  // namespace

PreparedLaunch prepare_launch(const LaunchPlan& plan) {
  PreparedLaunch out;
  std::vector<std::string> argv = plan.argv;
  for (const auto& d : plan.data_fds) {
    UniqueFd fd = memfd_with("blaude-data", d.content);
    for (auto& a : argv)
      if (a == d.token) a = std::to_string(fd.get());
    out.keep_fds.push_back(fd.get());
    out.fds.push_back(std::move(fd));
  }
  if (argv.empty()) return out;
  size_t end = 1;
  while (end < argv.size() && argv[end] != "--") ++end;
  std::string packed;
  for (size_t i = 1; i < end; ++i) {
    packed += argv[i];
    packed += '\0';
  }
  UniqueFd args = memfd_with("blaude-args", packed);
  out.argv = {argv[0], "--args", std::to_string(args.get())};
  out.argv.insert(out.argv.end(), argv.begin() + long(end), argv.end());
  out.keep_fds.push_back(args.get());
  out.fds.push_back(std::move(args));
  return out;
}

namespace {

void say(const char* kind, const std::string& text) { std::fprintf(stderr, "blaude: %s%s\n", kind, text.c_str()); }

// claude writes its settings there; without it nothing of a session persists.
void ensure_config_dir(const cli::Options& o) {
  if (o.dry_run) return;
  const char* home = std::getenv("HOME");
  const char* cfg = std::getenv("CLAUDE_CONFIG_DIR");
  if (cfg && *cfg == '/') {
    ::mkdir(cfg, 0700);
  } else if (home && *home == '/') {
    ::mkdir((std::string(home) + "/.claude").c_str(), 0700);
  }
}

void explain_bwrap_failure(const HostFacts& f) {
  if (run_bwrap_quietly(f.bwrap, {"--unshare-user", "--ro-bind", "/", "/", "true"}) == 0) return;
  say("", "bwrap cannot create an unprivileged user namespace on this host");
  std::fprintf(stderr,
               "On Ubuntu 24.04+ AppArmor blocks it: run 'blaude fix-apparmor' (needs sudo).\n"
               "Elsewhere check the sysctls kernel.unprivileged_userns_clone and user.max_user_namespaces.\n");
}

}  // namespace

int run_sandboxed(const cli::Options& opts, const std::function<PlanInputs(const HostFacts&)>& make_inputs,
                  const pty::SuperviseOptions& session) {
  ensure_config_dir(opts);
  auto t0 = std::chrono::steady_clock::now();
  HostFacts facts = HostFacts::probe(opts);
  // MCP servers need their token files to exist to persist a login (--dry-run creates nothing).
  if (!opts.dry_run) create_token_files(facts);
  auto t1 = std::chrono::steady_clock::now();
  const PlanInputs in = make_inputs(facts);
  for (const auto& g : in.grants) facts.paths.emplace(g.path, probe_path(g.path));
  if (facts.bwrap.empty() && !opts.dry_run) {
    say("", "bubblewrap (bwrap) is not installed; refusing to run without a sandbox");
    std::fprintf(stderr, "Install it: sudo apt install bubblewrap  (Fedora: sudo dnf install bubblewrap)\n");
    return 1;
  }
  LaunchPlan plan;
  try {
    plan = sandbox::plan(opts, facts, in);
  } catch (const PlanError& e) {
    say("", e.what());
    std::fprintf(stderr, "%s\n", e.hint.c_str());
    return 1;
  }
  auto t2 = std::chrono::steady_clock::now();
  using us = std::chrono::microseconds;
  // Only into blaude's log: spdlog's default logger (no log::init, e.g. --dry-run) is stdout.
  if (auto lg = spdlog::get("blaude"))
    lg->info("sandbox: probe {} us ({} workspace entries of interest), plan {} us, {} bwrap args",
             std::chrono::duration_cast<us>(t1 - t0).count(), facts.ws.hits.size() + facts.ws.links.size(),
             std::chrono::duration_cast<us>(t2 - t1).count(), plan.argv.size());
  for (const auto& w : plan.warnings) say("warning: ", w);
  for (const auto& n : plan.notes) say("note: ", n);
  if (opts.dry_run) {
    std::fputs(format_command(plan).c_str(), stdout);
    return 0;
  }
  if (opts.debug) std::fputs(format_command(plan).c_str(), stderr);
  std::fflush(stderr);

  PreparedLaunch launch;
  try {
    launch = prepare_launch(plan);
  } catch (const std::system_error& e) {
    say("", std::string("cannot prepare the sandbox: ") + e.what());
    return 1;
  }
  pty::Command cmd;
  cmd.argv = launch.argv;
  // bwrap's own environment is what its pid-1 reaper keeps, readable at /proc/1/environ inside:
  // give it none. The sandbox's environment is entirely in the --setenv options.
  if (!opts.keep_env) cmd.env = std::vector<std::string>{};
  cmd.keep_fds = launch.keep_fds;
  int rc = pty::supervise(cmd, session);
  if (rc == 1) explain_bwrap_failure(facts);
  return rc;
}

}  // namespace blaude::sandbox
