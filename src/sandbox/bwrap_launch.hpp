// The thin shell around the planner: memfds for the plan's data, and the whole sequence
// probe → plan → print → launch under the PTY supervisor.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "common/unique_fd.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/plan.hpp"

namespace blaude::sandbox {

// A plan made executable. All bwrap options travel through one `--args FD` memfd, so neither
// the sandbox (/proc/1/cmdline is bwrap's) nor other host users (ps) see --setenv values.
struct PreparedLaunch {
  std::vector<std::string> argv;  // {bwrap, "--args", "N", "--", command...}
  std::vector<UniqueFd> fds;      // keep open until the child has started
  std::vector<int> keep_fds;      // → pty::Command::keep_fds
};

// Creates one memfd per DataFd, substitutes its number for the token, then packs the options.
// Throws std::system_error when a memfd cannot be made.
PreparedLaunch prepare_launch(const LaunchPlan& plan);

// Everything main needs for a sandboxed run: ensure ~/.claude exists (not under --dry-run),
// probe, ask `make_inputs` for the env/command/grants (the env policy needs the facts, e.g.
// sandbox_path(facts)), plan, print warnings/notes, --dry-run/--debug output, fail closed
// without bwrap, supervise, and explain a bwrap that cannot create namespaces.
// Returns blaude's exit code.
int run_sandboxed(const cli::Options& opts, const std::function<PlanInputs(const HostFacts&)>& make_inputs);

}  // namespace blaude::sandbox
