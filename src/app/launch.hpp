// Internal to the app layer: a launch as decided, before anything on the host has changed.
// decide_*() fill it (reads only); prepare() makes the changes it lists; supervise() runs it.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/backend.hpp"
#include "app/failure.hpp"
#include "app/network.hpp"
#include "app/services.hpp"
#include "audit/walk.hpp"
#include "cli/options.hpp"
#include "common/host_env.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/bwrap/run/limits.hpp"
#include "sandbox/env_policy.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/request.hpp"
#include "sandbox/trust/gate.hpp"

namespace blaude::app {

struct Launch {
  bool sandboxed = true;
  Backend backend = Backend::Bwrap;
  bool planned_only = false;  // BLAUDE_TEST_BACKEND: printed, never started
  sandbox::LaunchPlan plan;            // argv: bwrap … -- cmd (sandboxed) or the command itself
  std::vector<std::string> child_env;  // the started process's environment (bwrap: none)
  std::vector<std::string> notices;    // whole lines for stderr, before the plan's warnings/notes
  std::vector<std::string> onboarding_files;  // .claude.json files to give the onboarding flags
  // A "yes" to the trust question, recorded by prepare() once the launch is decided.
  std::optional<sandbox::trust::GateRequest> gate;
  std::optional<sandbox::trust::TrustEntry> trust_answer;
  std::string bwrap;  // sandboxed: the bwrap that runs, to explain its failure
  std::optional<NetLaunch> net;  // proxy mode: the proxy supervise() runs
  std::string netns_pasta;       // the default mode in a namespace of its own: the pasta that joins it
  std::optional<ServicesLaunch> services;  // the broker supervise() runs (the signing-only agent)
  SshPolicy ssh_policy;                    // the user policy's ssh-agent / ssh-key lines (trust_gate)
  // The resource limits: the user policy's (trust_gate), then the flags'; where they are enforced.
  LimitSettings limit_settings;
  sandbox::bwrap::LimitPlan limits;
  // The probe's complete walk of the workspace: the audit's snapshot before the session reuses it.
  std::vector<audit::PriorWalk> prior_walks;
  // Seatbelt: where the session starts (bwrap says it with --chdir), and the argv text the
  // launcher replaces by the pty slave's name.
  std::string cwd;
  std::string tty_token;
};

using Decision = std::variant<Launch, Failure>;

// The sandbox's limits: the user policy's settings with the flags over them.
LimitSettings limit_settings(const cli::Options& o, LimitSettings from_policy = {});

// The command line's choices as the environment policy and the sandbox backends read them.
sandbox::EnvRules env_rules(const cli::Options& o);
// `home`: what ~ and ~/ at the start of a -m path stand for (cli::expand_home).
sandbox::SandboxRequest sandbox_request(const cli::Options& o, const std::vector<std::string>& argv,
                                        const std::string& home = "");

// Pure over what they are given except for the reads they name (the bwrap probe, the policy
// files, the trust question on the terminal).
Decision decide_sandboxed(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv);
Decision decide_seatbelt(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv,
                         bool planned_only);

// The parts both backends share: the seed's message for a missing program; Claude's settings
// that would block bypass mode and the onboarding files; the trust gate over the project and
// user policies (their grants land in req.grants; --dry-run neither asks nor records).
Failure missing_program(const std::string& name);
void claude_checks(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv, Launch& l);
std::optional<Failure> trust_gate(const HostEnv& host, const cli::Options& o, sandbox::SandboxRequest& req,
                                  Launch& l, std::string* project_file = nullptr,
                                  std::string* no_default_domains = nullptr);
Decision decide_unsandboxed(const HostEnv& host, const cli::Options& o, const std::vector<std::string>& argv);

// The warnings and notes lines as report() prints them (also the ones a deferred plan adds).
void report_findings(const std::vector<std::string>& warnings, const std::vector<std::string>& notes);

// Prints the notices, warnings and notes (and with --debug the command) to stderr; with
// --dry-run the plan itself, including the host preparations it would make, to stdout.
void report(const Launch& l, const cli::Options& o);

// The sandbox's layers as one line (namespaces, abstract-socket scoping, the syscall filter,
// the keyring, the network, resource limits); `missing` when one that this host could have is off.
struct Layers {
  std::string text;
  bool missing = false;
};
Layers sandbox_layers(const Launch& l, const cli::Options& o);

// One host preparation: "" when done (or already so), else why not.
std::string apply(const sandbox::HostPrep& p);

// Makes the host changes the launch listed: the log file, the plan's preparations, the trust
// answer, the onboarding flags. The only step that writes; --dry-run never reaches it.
std::optional<Failure> prepare(const Launch& l);

// Starts the launch under the PTY supervisor (asciinema guard, OSC 52 filter) and returns the
// exit code; explains a bwrap that could not create its namespaces.
// A deferred bwrap plan (sandbox/bwrap/plan/deferred.hpp) is finished right after bwrap's spawn; its
// warnings are printed then, and `before_command` gets the workspace scan before the protect
// helper is forked (nothing in the sandbox can run before that).
using ScanHook = std::function<void(const sandbox::bwrap::WorkspaceScan&)>;
// Called once the child runs (after before_command), with its pid.
using StartHook = std::function<void(pid_t)>;
int supervise(const HostEnv& host, const cli::Options& o, const Launch& l, const ScanHook& before_command = {},
              const StartHook& started = {});

}  // namespace blaude::app
