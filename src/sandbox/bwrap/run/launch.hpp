// A bwrap plan made executable: memfds for the plan's data and for bwrap's own options.
#pragma once
#include <string>
#include <vector>

#include <memory>

#include "common/unique_fd.hpp"
#include "sandbox/bwrap/run/protect_gate.hpp"
#include "sandbox/bwrap/plan/deferred.hpp"
#include "sandbox/bwrap/probe/confine.hpp"
#include "sandbox/bwrap/run/userns_watch.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

// All bwrap options travel through one `--args FD` memfd, so neither the sandbox
// (/proc/1/cmdline is bwrap's) nor other host users (ps) see --setenv values.
struct PreparedLaunch {
  std::vector<std::string> argv;  // {bwrap, "--args", "N", "--", command...}
  std::vector<UniqueFd> fds;      // keep open until the child has started
  std::vector<int> keep_fds;      // → pty::Command::keep_fds
  // The protect helper, when the plan has inner mounts (started here, before bwrap is).
  std::unique_ptr<ProtectGate> gate;
  // A deferred plan's mounts (plan.deferred), filled by finish_deferred() before the helper's fork.
  std::unique_ptr<std::vector<InnerMount>> deferred_mounts;
  // Otherwise the plan's inner mounts, with the binds' sources recorded (record_binds()).
  std::unique_ptr<std::vector<InnerMount>> inner_mounts;
  // The plan's Confinement laid out for the forked child (→ pty::Command::pre_exec with
  // run_confinement); null when there is nothing to do.
  std::unique_ptr<PreparedConfinement> confine;
  int setup_done_fd = -1;  // of kSetupDoneToken's data (plan/held.hpp), when the plan has one
  // Answers the user-namespace calls the exec shim's filter hands over (SyscallFilter::userns_by_shim).
  std::unique_ptr<UsernsWatch> userns;
};

// pty::PreExec's signature over a PreparedConfinement.
int run_confinement(const void* prepared, int* step);

// Creates one memfd per DataFd, substitutes its number for the token, then packs the options.
// Throws std::system_error when a memfd cannot be made.
PreparedLaunch prepare_launch(const LaunchPlan& plan);

// Right after bwrap's spawn, for a deferred plan (bwrap/deferred.hpp): waits for the workspace
// scan and finishes the plan, giving the helper its mounts, or, when the plan could not be
// finished, failing the gate (nothing runs). Then the caller takes what must precede the
// command (the audit's snapshot) and forks the helper (launch.gate->launch_helper()). Returns
// the finished part, to report; null without a deferred plan.
const DeferredProtect::Result* finish_deferred(const LaunchPlan& plan, PreparedLaunch& launch);

// After the supervised bwrap exited: "" when the protections were all made (or there were none),
// else why the sandbox did not start (nothing ran then).
std::string protect_outcome(PreparedLaunch& launch);

// After bwrap exited 1 with held binds (plan/held.hpp): "" when its mounts were all made (the 1 is the
// command's), else why the sandbox did not start.
std::string held_outcome(const LaunchPlan& plan, const PreparedLaunch& launch);

// bwrap exited 1 before the command ran: the hint when it is the host's user namespaces (the
// usual reason: AppArmor on Ubuntu 24.04+, or a sysctl), else nothing.
std::vector<std::string> explain_failure(const std::string& bwrap);

}  // namespace blaude::sandbox::bwrap
