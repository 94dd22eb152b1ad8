// The trust gate: the policies blaude will apply for this run, and the question that guards a
// new or changed project policy. The app layer calls load_policies() for --print-policy and
// --dry-run, run_trust_gate() before planning the sandbox, and record_answer() when it prepares
// the launch.
#pragma once
#include <string>
#include <vector>

#include "common/host_env.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/trust/ledger.hpp"

namespace blaude::sandbox::trust {

struct GateRequest {
  std::string home;                    // resolved $HOME
  std::string project_root;            // resolved project directory
  std::string config_dir;              // e.g. $HOME/.config/blaude
  std::vector<std::string> path_dirs;  // host PATH, split
  bool trust_policy = false;           // --trust-policy: trust this run without asking
  std::string workspace_path;          // --workspace-path (host|seed), "" when not given
  std::string tty_path = "/dev/tty";   // where the question is asked: the controlling terminal
};

struct LoadedPolicies {
  std::string user_file;     // "" when there is none
  std::string project_file;  // "" when there is none
  std::string sha256;        // of the project file's bytes
  std::string project_text;  // those bytes (the trust prompt shows them)
  std::string scope;         // trust scope of the project
  policy::Policy user, project;
  Grants grants;             // effective (user + project): normalised, symlinks resolved and
                             // re-checked (policy_resolve.hpp); what the backends get
};

struct GateResult {
  enum class Status { Proceed, Declined, Error } status = Status::Error;
  LoadedPolicies loaded;
  std::string message;  // Declined/Error: printed as "blaude: <message>"
  std::string hint;     // second line
  std::string note;     // Proceed: optional one-liner for stderr ("trusted for this run only")
  // Proceed after the user answered yes: the entry the prepare step records (record_answer),
  // so an answer is written only once the whole launch has been decided.
  std::optional<TrustEntry> to_record;
};

// The request for this host: project root = the current directory (resolved), home = $HOME
// (resolved), config dir = $XDG_CONFIG_HOME/blaude or ~/.config/blaude, PATH split.
GateRequest gate_request(const HostEnv& host, bool trust_policy);

// The layout in effect: --workspace-path when given, else seed when either policy file says
// `workspace-path seed` (the layout that shows less), else host.
bool seed_workspace(const std::string& flag, const LoadedPolicies& loaded);

// Identifies blaude's base policy (protected paths, toolchain table): trust given under another
// base is asked again.
std::string base_policy_id();

// Finds, reads once, hashes and parses the user and project policy files. No prompt.
// Status is Proceed (loaded) or Error (unreadable/invalid; message lists file:line: why).
GateResult load_policies(const GateRequest& req);

// load_policies, then for a project policy not yet trusted under this base: with
// --trust-policy proceed (not recorded); else ask on the terminal (tty_path): "yes" → Proceed
// with to_record set; "no" → Declined; no terminal → Error with a hint about --trust-policy.
// Writes nothing.
GateResult run_trust_gate(const GateRequest& req);

// Records a "yes" in the ledger (a locked read-modify-write). "" on success, else why not.
std::string record_answer(const GateRequest& req, const TrustEntry& entry);

// What --print-policy prints (the same listing the trust prompt uses). Pure.
std::string format_policy_report(const LoadedPolicies& loaded, bool trusted);

// True when the project policy in `loaded` is trusted under the current base (no prompt).
bool is_trusted(const GateRequest& req, const LoadedPolicies& loaded);

}  // namespace blaude::sandbox::trust
