// The app layer's entry points, one per action main dispatches. Each reads the host once,
// decides everything, then acts; control goes down once and comes back with an Outcome.
#pragma once
#include <string>
#include <vector>

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
// `blaude selftest`: harmless attacks from inside a real sandbox, as a table (app/selftest.cpp).
Outcome run_selftest(const cli::Options& o);
// `blaude net log` / `blaude net allow PATTERN`: a running proxy-mode session, through its
// control socket (net/live_control.hpp).
Outcome run_net_command(const cli::Options& o);
// --help: the options, and proxy mode's default hosts for this environment.
Outcome show_help();
// `blaude __net-relay ... -- CMD`: proxy mode's relay inside the sandbox (inside/relay_main.hpp).
// Returns only when CMD could not be started.
int net_relay(const std::vector<std::string>& args);
// `blaude __net-attach FD -- CMD`: the default mode's wait for its own network namespace
// (net/netns.hpp). Returns only when CMD did not run.
int net_attach(const std::vector<std::string>& args);

}  // namespace blaude::app
