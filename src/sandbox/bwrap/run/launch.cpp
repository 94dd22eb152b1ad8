#include "sandbox/bwrap/run/launch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <spdlog/spdlog.h>

#include "common/data_fd.hpp"
#include "sandbox/bwrap/probe/features.hpp"
#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/run/mount_checks.hpp"
#include "sandbox/bwrap/run/syscall_filter.hpp"

namespace blaude::sandbox::bwrap {

namespace {

// Close-on-exec like every other descriptor of blaude's (clipboard helpers must not inherit
// it); the supervisor clears the flag in bwrap's process only, for Command::keep_fds.
UniqueFd memfd_with(const char* name, const std::string& content) {
  UniqueFd fd = data_fd(name, content);
  if (!fd) throw std::system_error(errno, std::generic_category(), "cannot hand the sandbox its data");
  return fd;
}

// The helper's binds (InnerKind::Bind/RoBind) whose source the probe knew only by type: dev and
// ino now, from the source opened with no symlink on the way (as the mount checks record theirs),
// for the helper to hold them to. A --bind-try's source that is gone is dropped, as bwrap would.
// Throws HeldPathChanged (or std::system_error) otherwise.
void record_binds(std::vector<InnerMount>& mounts) {
  for (auto it = mounts.begin(); it != mounts.end();) {
    if ((it->kind != InnerKind::Bind && it->kind != InnerKind::RoBind) || it->id.dev || it->id.ino) {
      ++it;
      continue;
    }
    try {
      UniqueFd fd = hold_path(HeldPath{0, it->host, it->id, false});
      struct stat st;
      if (::fstat(fd.get(), &st) != 0) throw std::system_error(errno, std::generic_category(), "stat " + it->host);
      it->id.dev = (unsigned long long)st.st_dev;
      it->id.ino = (unsigned long long)st.st_ino;
      ++it;
    } catch (const HeldPathChanged&) {
      struct stat st;
      if (!it->if_gone || ::lstat(it->host.c_str(), &st) == 0 || errno != ENOENT) throw;
      it = mounts.erase(it);
    }
  }
}

}  // namespace

PreparedLaunch prepare_launch(const LaunchPlan& plan) {
  PreparedLaunch out;
  std::vector<std::string> argv = plan.argv;
  // The launcher's own options go before the "--" the planner rendered (a value of an option,
  // --setenv X --, is no end of options: the index says which word is).
  size_t end = plan.options_end;
  if (!argv.empty() && (end == 0 || end >= argv.size() || argv[end] != "--"))
    throw std::logic_error("the plan's end of options is not at argv[" + std::to_string(end) + "]");
  auto insert = [&](std::vector<std::string> ops) {
    argv.insert(argv.begin() + long(end), ops.begin(), ops.end());
    end += ops.size();
  };
  // First: a bind whose source changed since the probe refuses the launch before anything starts.
  hold_binds(argv, plan.held, out.fds, out.keep_fds);
  // Then what the by-path mounts' sources are, for the exec shim to find at their destinations
  // (mount_checks.hpp); also refuses here when a source already has a symlink on its way.
  if (!plan.checks.empty()) {
    UniqueFd fd = memfd_with("blaude-checks", format_check_lines(record_checks(plan.checks)));
    // The gate's options (or the held binds') make the dir already: no second op (each costs start-up).
    if (!plan.makes_run_dir) insert({"--dir", "/run/blaude"});
    insert({"--file", std::to_string(fd.get()), kChecksFile, "--setenv", kChecksEnv, kChecksFile});
    out.keep_fds.push_back(fd.get());
    out.fds.push_back(std::move(fd));
  }
  if (plan.syscalls.on) {
    // The user-namespace rows go to the shim's filter, whose listener comes back over the
    // watch's socket (inside/userns_guard.hpp); without a watch, bwrap's program keeps them.
    SyscallFilter f = plan.syscalls;
    if (f.userns_by_shim) out.userns = UsernsWatch::start();
    f.userns_by_shim = out.userns != nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string program = compile_syscall_filter(f);
    spdlog::info("sandbox: syscall filter: {} instructions, compiled in {} us", program.size() / 8,
                 std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    UniqueFd fd = memfd_with("blaude-seccomp", program);
    insert({"--seccomp", std::to_string(fd.get())});
    out.keep_fds.push_back(fd.get());
    out.fds.push_back(std::move(fd));
    if (out.userns) {
      insert({"--setenv", kUsernsNotifyEnv, std::to_string(out.userns->inside_fd())});
      out.keep_fds.push_back(out.userns->inside_fd());
    }
  }
  if (plan.deferred) {
    out.deferred_mounts = std::make_unique<std::vector<InnerMount>>();
    out.gate = std::make_unique<ProtectGate>(ProtectGate::start(*out.deferred_mounts, std::chrono::seconds(20)));
  } else if (!plan.inner_mounts.empty()) {
    out.inner_mounts = std::make_unique<std::vector<InnerMount>>(plan.inner_mounts);
    record_binds(*out.inner_mounts);
    out.gate = std::make_unique<ProtectGate>(ProtectGate::start(*out.inner_mounts, std::chrono::seconds(20)));
  }
  if (out.gate) {
    for (auto& a : argv) {
      if (a == kInfoToken) a = std::to_string(out.gate->info_fd());
      if (a == kGateToken) a = std::to_string(out.gate->gate_fd());
    }
    out.keep_fds.push_back(out.gate->info_fd());
    out.keep_fds.push_back(out.gate->gate_fd());
  }
  for (const auto& d : plan.data_fds) {
    UniqueFd fd = memfd_with("blaude-data", d.content);
    for (auto& a : argv)
      if (a == d.token) a = std::to_string(fd.get());
    if (d.token == kSetupDoneToken) out.setup_done_fd = fd.get();
    out.keep_fds.push_back(fd.get());
    out.fds.push_back(std::move(fd));
  }
  if (!plan.confine.empty()) out.confine = std::make_unique<PreparedConfinement>(plan.confine);
  if (argv.empty()) return out;
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

const DeferredProtect::Result* finish_deferred(const LaunchPlan& plan, PreparedLaunch& launch) {
  if (!launch.gate || !plan.deferred || !launch.deferred_mounts) return nullptr;
  const DeferredProtect::Result& r = plan.deferred->finish();
  if (!r.error.empty()) {
    launch.gate->fail(r.error);
  } else {
    *launch.deferred_mounts = r.mounts;
    try {
      record_binds(*launch.deferred_mounts);
    } catch (const std::exception& e) {
      launch.gate->fail(e.what());
    }
  }
  spdlog::info("sandbox: workspace scan finished after bwrap's start: waited {} us, layout {} us, {} inner mounts{}",
               r.wait_us, r.layout_us, r.mounts.size(), r.error.empty() ? "" : "; failed: " + r.error);
  return &r;
}

std::string protect_outcome(PreparedLaunch& launch) {
  if (!launch.gate) return {};
  std::string why = launch.gate->outcome();
  spdlog::debug("protect: {}", launch.gate->report());
  return why;
}

std::string held_outcome(const LaunchPlan& plan, const PreparedLaunch& launch) {
  if (plan.held.empty() || setup_done(launch.setup_done_fd)) return {};
  if (auto p = changed_held_path(plan.held); !p.empty()) return p + " changed while the sandbox was starting";
  return "bwrap stopped while making its mounts (its message is above)";
}

int run_confinement(const void* prepared, int* step) {
  return apply_confinement(*static_cast<const PreparedConfinement*>(prepared), step);
}

std::vector<std::string> explain_failure(const std::string& bwrap) {
  if (bwrap.empty() || probe_userns(bwrap).status == 0) return {};
  return {"bwrap cannot create an unprivileged user namespace on this host",
          "On Ubuntu 24.04+ AppArmor blocks it: run 'blaude fix-apparmor' (needs sudo).\n"
          "Elsewhere check the sysctls kernel.unprivileged_userns_clone and user.max_user_namespaces."};
}

}  // namespace blaude::sandbox::bwrap
