// macOS backend, the host facts: everything the Seatbelt launch reads of the host, read once
// (probe), as plain values. make_context() (context.hpp) decides from them; nothing after the
// probe touches the file system.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/host_env.hpp"
#include "sandbox/request.hpp"
#include "sandbox/seatbelt/profile.hpp"

namespace blaude::sandbox::seatbelt {

inline constexpr const char* kSandboxExec = "/usr/bin/sandbox-exec";

// One path as probed: its resolved form ("" when missing or broken) and whether it was a link.
struct Probed {
  std::string path;
  std::string real;
  bool link = false;
  bool socket = false;
  bool exists() const { return !real.empty(); }
};

struct SeatbeltHost {
  std::string sandbox_exec;  // kSandboxExec when executable, else ""
  std::string home;          // HOME as given (normalised)
  std::string home_real;     // resolved
  std::string project;       // the resolved working directory
  std::string user;
  // confstr(_CS_DARWIN_USER_TEMP_DIR / _CS_DARWIN_USER_CACHE_DIR) on macOS; elsewhere (and when
  // confstr fails) derived from $TMPDIR. Resolved, no trailing slash; "" when unknown.
  std::string darwin_temp, darwin_cache;
  std::string tmpdir_env;  // $TMPDIR as given (to say why it was not used)
  // The active developer dir (xcode-select's link), and the Command Line Tools, when present.
  std::vector<std::string> developer_dirs;
  // The program the session runs (claude, or the --exec word) as found on PATH, resolved, and
  // the interpreter its #! line names, resolved ("" when none or not found).
  std::string program;      // the name asked for
  std::string program_found;  // PATH result ("" = not found)
  std::string program_real;
  std::string interpreter_real;
  std::string claude_config_dir;  // resolved CLAUDE_CONFIG_DIR or ~/.claude (may not exist)
  std::vector<Probed> home_entries;  // the base home entries the profile names (links matter)
  std::vector<Probed> mounts;        // -m paths, in request order (resolved against the cwd)
  Probed ssh_dir, ssh_sock, aws_dir, gnupg_dir, gpg_sock, git_credentials;
  std::vector<std::string> gnupg_public;  // resolved public keyring/trust/conf files
  // What the workspace scan protects (git's code-bearing files, rc files, .env*), and the git
  // dirs outside the project a linked worktree writes (objects, refs).
  std::vector<Protected> protect;
  std::vector<std::string> git_dirs;
  // Programs the user's and the project's Claude Code settings name (hooks, statusLine,
  // apiKeyHelper, ...: common/claude_keys.hpp), resolved, existing regular files: claude runs
  // them on the host on its own, so the profile keeps them write-denied.
  std::vector<std::string> claude_scripts;
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, std::string>> env;  // the host environment

  std::string env_or(const std::string& key, const std::string& fallback = "") const;
  // Probes the host for `req` (I/O: realpath, lstat, confstr, a bounded workspace walk).
  static SeatbeltHost probe(const HostEnv& host, const SandboxRequest& req);
};

// The per-user dirs derived from $TMPDIR (…/folders/xx/yyy/T → T, C, X), or nullopt when it
// does not have the macOS shape. Pure.
struct DarwinDirs {
  std::string temp, cache, volatile_dir;
};
std::optional<DarwinDirs> darwin_dirs_from_temp(const std::string& resolved_temp);

// The interpreter a script's first line names: "#!/usr/bin/env node" → {"node", true} (look it
// up on PATH), "#!/opt/x/bin/python3 -u" → {"/opt/x/bin/python3", false}; nullopt when the text
// is no script. Pure.
struct Shebang {
  std::string program;
  bool via_env = false;
};
std::optional<Shebang> parse_shebang(std::string_view first_bytes);

}  // namespace blaude::sandbox::seatbelt
