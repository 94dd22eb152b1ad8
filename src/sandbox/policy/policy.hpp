// The project policy: blaude's reading of the xclaude DSL (`.blaude`, or an existing `.xclaude`)
// and of the user-level file (~/.config/blaude/policy). Pure: text in, typed policy or errors out.
//
// Grammar (one directive a line, `#` starts a comment, surrounding blanks ignored):
//   tool NAME             a toolchain from toolchains.hpp
//   allow-read PATH       read
//   allow-write PATH      read + write
//   allow-exec PATH       read + execute
//   allow-domain PATTERN  proxy mode: this destination is reachable (net/pattern.hpp)
//   no-default-domains    (user policy only) proxy mode without the provider's default hosts
//   ssh-agent             (user policy only) every session gets the signing-only ssh-agent
//   ssh-key KEY           (user policy only) a key that agent may use: SHA256:... or its comment
//   nested-sandbox        (user policy only) namespaces for programs inside
//   clipboard-paste M     (user policy only) the clipboard stand-ins' reads: off, or text (text
//                         reads always answered); the default answers a read only right after
//                         the user's paste key
//   workspace-path L      where the project is inside: host (its own path) or seed (/workspaces/<dir>)
// PATH starts with "~/" (home), "./" (project root) or "/" (absolute). Everything after the
// first blank of the directive is the path, so paths may contain spaces.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/grant.hpp"

namespace blaude::sandbox::policy {

// The names a project policy file may have, in order of preference.
inline constexpr std::string_view kPolicyFileName = ".blaude";
inline constexpr std::string_view kXclaudeFileName = ".xclaude";

struct PolicyContext {
  std::string home;                     // absolute, resolved
  std::string project_root;             // absolute, resolved
  std::vector<std::string> path_dirs;   // the host's PATH, split (never writable by a policy)
  std::string config_dir;               // blaude's own config, e.g. ~/.config/blaude
};

struct PolicyError {
  std::string file;
  int line = 0;  // 0: the file as a whole
  std::string why;
};

struct ToolUse {
  std::string name;
  std::string origin;  // "file:line"
};

struct Policy {
  std::vector<ToolUse> tools;
  Grants grants;  // every allow-* line and every toolchain path, expanded, in file order
  // Lines accepted but without effect, said to the user ("file:line: ... ignored"). A grant
  // inside the project is one: the project is already readable, writable and executable, and a
  // separate mount of e.g. ./.git would be a second, unprotected path to .git/hooks.
  std::vector<std::string> notes;
  std::string no_default_domains;  // where `no-default-domains` was said ("" when not)
  std::string nested_sandbox;      // where `nested-sandbox` was said ("" when not)
  std::string ssh_agent;           // where `ssh-agent` was said ("" when not)
  std::string clipboard_paste;         // `clipboard-paste off|text`: the value ("" when not said)
  std::string clipboard_paste_origin;  // where it was said
  struct SshKey {
    std::string key;     // as written: a fingerprint or a comment (checked by the app layer)
    std::string origin;  // "file:line"
  };
  std::vector<SshKey> ssh_keys;
  std::string workspace_path;         // `workspace-path host|seed`: the value ("" when not said)
  std::string workspace_path_origin;  // where it was said
  // `memory-max SIZE`, `pids-max N`, `no-limits` (user policy only): the sandbox's resource
  // limits for every session (flags win); the origin is where each was said ("" when not).
  std::optional<uint64_t> memory_max;
  std::optional<uint64_t> pids_max;
  std::string limits_origin;  // the first of the three lines
  std::string no_limits;
};

struct PolicyResult {
  Policy policy;
  std::vector<PolicyError> errors;  // non-empty: the file is rejected as a whole
  bool ok() const { return errors.empty(); }
};

// Parses and validates one policy file. `origin_file` names it in errors and grant origins.
PolicyResult parse_policy(std::string_view text, const std::string& origin_file,
                          const PolicyContext& ctx);

// Validates one already-expanded absolute path for `access`; returns why it is refused, or "".
// Shared by the parser and the toolchain table's tests.
std::string check_grant_path(Access access, const std::string& path, const PolicyContext& ctx);

// The user policy followed by the project policy.
Policy merge_policies(const Policy& user, const Policy& project);

// Normalised grants: duplicates merged (origins joined), a read dropped when a write or exec of
// the same path implies it; ordered by risk (exec, write, read), then path.
Grants policy_grants(const Policy& policy);

std::string_view access_name(Access a);  // "read" / "write" / "exec" / "net"

// "a/b" is `ancestor` or equal of "a/b/c" (whole components only).
bool path_within(std::string_view path, std::string_view ancestor);

}  // namespace blaude::sandbox::policy
