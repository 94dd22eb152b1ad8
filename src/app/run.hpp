// The app layer's entry points, one per action main dispatches. Each reads the host once,
// decides everything, then acts; control goes down once and comes back with an Outcome.
#pragma once
#include "app/failure.hpp"
#include "cli/options.hpp"

namespace blaude::app {

// The session: claude (or --exec CMD) in the sandbox, or under --no-sandbox on the host.
Outcome run(const cli::Options& o);
// update / install / install-github-app: claude's own subcommands, on the host, unsupervised.
Outcome host_bypass(const cli::Options& o);
// `blaude doctor` and `blaude fix-apparmor`.
Outcome run_doctor();
Outcome run_fix_apparmor(const cli::Options& o);

}  // namespace blaude::app
