// macOS backend, pure part: Policy + host paths → SBPL profile text for sandbox-exec. Portable
// (tested on Linux); nothing here touches the file system.
//
// Shape: deny by default; xclaude's base allowlist (reference A.2) with absolute paths; the
// policy's grants; and LAST the protective denies, because SBPL's last matching rule wins: no
// grant, however wide, can re-open .git/hooks, .git/config, .env* or the policy file.
// Every string that comes from outside this file goes through sbpl_string().
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

#include "sandbox/policy/policy.hpp"

namespace blaude::sandbox::seatbelt {

struct SeatbeltError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SeatbeltContext {
  std::string home;            // resolved (realpath): Seatbelt matches resolved paths
  std::string project_dir;     // resolved
  std::string tmp_dir;         // resolved $TMPDIR (e.g. /private/var/folders/…/T); may be empty
  std::string git_common_dir;  // resolved, only when it lies outside project_dir (worktrees)
  std::string policy_file;     // the project policy file, if any
  std::string tty_device;      // the supervisor's pty slave, e.g. /dev/ttys004; may be empty
};

// A quoted SBPL string literal. Throws SeatbeltError on characters that cannot be expressed
// safely (control characters, invalid UTF-8): failing beats a profile that means something else.
std::string sbpl_string(std::string_view s);

// The whole profile. Throws SeatbeltError when a path cannot be expressed (see sbpl_string) or
// the context lacks home / project_dir.
std::string seatbelt_profile(const policy::Policy& policy, const SeatbeltContext& ctx);

}  // namespace blaude::sandbox::seatbelt
