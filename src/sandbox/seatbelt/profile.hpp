// macOS backend, pure part: grants + resolved host paths + the options' meanings → the SBPL
// profile text for sandbox-exec. Portable (tested on Linux); nothing here touches the file system.
//
// Shape: deny by default; the base allowlist (xclaude's, widened where Claude Code and its tools
// really live); the policy's grants; and LAST the protective denies, because SBPL's last
// matching rule wins: no grant, however wide, can re-open what the workspace scan protects.
// Every string that comes from outside this file goes through sbpl_string() (or, for the
// case-insensitive twins of protected paths, ci_regex(), which accepts a fixed alphabet only).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sandbox/grant.hpp"

namespace blaude::sandbox::seatbelt {

struct SeatbeltError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A path the sandbox must not write, from the workspace scan (git's code-bearing files, rc
// files, .env*, the policy files): a directory is protected as a whole tree.
struct Protected {
  std::string path;  // resolved, absolute
  bool tree = false;
  std::string why;   // for the comment line and --dry-run readers
};

// Everything the profile depends on, already resolved (Seatbelt matches resolved paths) and
// already decided (what each option means). Built by context.hpp from the host facts.
struct SeatbeltContext {
  std::string home;         // resolved
  std::string project_dir;  // resolved; "" when no project is open (--tmp)
  // The per-user dirs of confstr(_CS_DARWIN_USER_*): T ($TMPDIR), C (caches; the Security
  // framework keeps keychain state there) and X (code-signing clones). "" when unknown.
  std::string tmp_dir, cache_dir, volatile_dir;
  std::string claude_config_dir;  // resolved CLAUDE_CONFIG_DIR, or home/.claude
  std::string tty_device;  // the session's own pty slave (or the launcher's token); "" = none
  bool dev_tty = true;     // /dev/tty is the session's own pty (false without one)

  // Home base entries that are symlinks (stow, chezmoi, home-manager): (home path, target).
  std::vector<std::pair<std::string, std::string>> home_links;
  std::vector<std::string> exec_dirs;  // read + exec: claude's real dirs, its interpreter, Xcode
  std::vector<std::string> read_dirs;  // read only: -m, --ssh/--aws/--git files, gnupg's public parts
  std::vector<std::string> write_dirs;  // read + write: -m :rw, --keyring's keychain dir
  std::vector<std::string> git_dirs;   // read + write: a linked worktree's gitdir/common dir
  std::vector<std::string> sockets;    // unix sockets the sandbox may connect to (agents)

  std::vector<Protected> protect;  // write-denied (unless allow_protected_writes)
  std::vector<std::string> always_protect;  // write-denied in every mode (the policy files)

  bool no_network = false;  // loopback only
  bool private_tmp = false;  // --clear-tmp: the host's /tmp is neither readable nor writable
};

// A quoted SBPL string literal. Throws SeatbeltError on characters that cannot be expressed
// safely (control characters, invalid UTF-8): failing beats a profile that means something else.
std::string sbpl_string(std::string_view s);

// `^<path>$` (or `^<path>(/.*)?$` for a tree) with every ASCII letter as [xX], for APFS, which
// is case-insensitive. "" when the path has a character outside [A-Za-z0-9 /._,+@~-] (no regex
// is made then; the literal rule still applies).
std::string ci_regex(std::string_view path, bool tree);

// Every ancestor directory of `path`, nearest first, without "/".
std::vector<std::string> ancestors(std::string_view path);

// The home entries the base profile names (relative to home): the host probe resolves each, so
// a symlinked one (dotfile managers) is allowed at its target too.
std::vector<std::string> base_home_entries();

// The whole profile. Throws SeatbeltError when a path cannot be expressed (see sbpl_string) or
// the context lacks home.
std::string seatbelt_profile(const Grants& grants, const SeatbeltContext& ctx);

}  // namespace blaude::sandbox::seatbelt
