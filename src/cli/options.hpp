// Everything the user asked for on the command line, as plain values (no I/O, no host facts).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace blaude::cli {

struct Mount {
  std::string path;  // as given: absolute, relative, or starting with ~ or ~/ (the app layer
                     // expands those with $HOME; ~user is refused by parse_mount)
  bool rw = false;   // PATH:rw
};

enum class Action {
  Run,          // the normal case: run claude (or --exec CMD) in the sandbox
  Help,         // --help
  Version,      // --version
  FixApparmor,  // fix-apparmor
  Doctor,       // doctor
  Selftest,     // selftest: the sandbox's protections tried from inside, as a table
  HostBypass,   // update / install / install-github-app: claude on the host, unsandboxed
  Net,          // net sessions | net log | net allow PATTERN: running proxy-mode sessions, from outside
};

struct Options {
  Action action = Action::Run;

  std::vector<std::string> claude_args;  // everything blaude does not know, in order
  std::vector<std::string> exec;         // --exec CMD ARGS... (empty: run claude)

  std::vector<std::pair<std::string, std::string>> env;  // --env KEY=VALUE, in order
  std::vector<Mount> mounts;                              // -m/--mount
  // --allow-domain PATTERN (canonical spelling, validated) and --publish PORT, in order. Either
  // one selects proxy mode: an own network namespace whose only way out is blaude's proxy.
  std::vector<std::string> allow_domains;
  std::vector<uint16_t> publish;
  std::string apparmor_bwrap;  // fix-apparmor /abs/bwrap: the bwrap to write the profile for
  std::string net_command;     // net: "sessions", "log" or "allow"
  std::string net_pattern;     // net allow: the pattern (canonical spelling, validated)
  long net_session = 0;        // net --session PID; 0: the only running session
  // --memory-max SIZE, --pids-max N (validated); unset: the policy's or the default.
  std::optional<uint64_t> memory_max;
  std::optional<uint64_t> pids_max;

  bool git = false;
  bool ssh = false;
  // --ssh-agent: the signing-only agent (no key files); --ssh-key KEY (repeatable, implies it):
  // a key it may use, as given (a SHA256 fingerprint or a comment; checked when the session is decided).
  bool ssh_agent = false;
  std::vector<std::string> ssh_keys;
  bool aws = false;
  bool no_network = false;
  bool keyring = false;
  bool remote_control = false;
  bool keep_env = false;
  bool chic = false;
  bool tmp = false;
  bool clear_tmp = false;
  bool allow_protected_writes = false;
  bool nested_sandbox = false;
  // --workspace-path=host|seed; "" when not given (the policies decide, else host).
  std::string workspace_path;
  bool no_limits = false;
  bool debug = false;
  bool dry_run = false;
  bool no_clipboard = false;
  bool no_sandbox = false;
  bool no_asciinema = false;
  bool trust_policy = false;
  bool print_policy = false;

  // `remote-control` was the first claude argument: claude's own server mode, passed without
  // --dangerously-skip-permissions. Either this or the --remote-control flag turns on RC mode.
  bool remote_control_subcommand = false;
  // `--` was given: everything after it went to claude_args verbatim (the `--` itself not).
  bool saw_double_dash = false;

  // Remote Control's environment (telemetry on, API keys dropped) applies to both forms.
  bool remote_control_mode() const { return remote_control || remote_control_subcommand; }
};

// A usage error: main prints "blaude: <message>" and a hint line, exits 2.
struct UsageError {
  std::string message;
  std::string hint;  // "" = the standard "Try 'blaude --help'" line
  UsageError(std::string m, std::string h = "") : message(std::move(m)), hint(std::move(h)) {}
};

}  // namespace blaude::cli
