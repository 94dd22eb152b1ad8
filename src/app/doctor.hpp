// `blaude doctor`: one line per check, OK or what to do. The report is pure over DoctorFacts;
// probe() gathers them (it runs bwrap once to see whether user namespaces really work).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/apparmor.hpp"
#include "app/backend.hpp"
#include "common/host_env.hpp"

namespace blaude::app::doctor {

struct Facts {
  Backend backend = Backend::Bwrap;
  // Seatbelt: sandbox-exec, and whether it accepts the base profile for this directory.
  std::string sandbox_exec;           // "" if not found
  std::optional<int> profile_status;  // exit status of `sandbox-exec -f PROFILE /usr/bin/true`
  std::string profile_output;
  std::string profile_error;          // the profile could not be made or written (why)
  std::string bwrap_path;             // "" if not found
  std::string bwrap_version;          // "0.8.0" ("" if unknown)
  bool overlay = false;               // it accepts --overlay-src/--tmp-overlay (asked, not guessed)
  std::optional<int> userns_status;   // exit status of a trivial bwrap run; nullopt: not tried
  std::string userns_output;          // what it printed (first line is shown on failure)
  apparmor::Facts apparmor;
  std::string claude_path;            // "" if not found
  std::string clipboard_backend;      // "wl-copy", "xclip", "xsel" or ""
  bool display_present = false;       // DISPLAY or WAYLAND_DISPLAY set
  std::string asciinema_path;         // "" if not found
  bool recording = false;             // ASCIINEMA_REC=1 in blaude's environment
  std::optional<std::string> legacy_tiocsti;  // dev.tty.legacy_tiocsti, if the kernel has it
  // Where the sandbox's resource limits would be enforced (bwrap backend), and why not a cgroup.
  bool limits_cgroup = false;
  std::string limits;
  std::string log_path;
};

struct Line {
  bool ok;           // false: blaude cannot run until this is fixed (or, if !fatal, a caveat)
  bool fatal;        // affects the exit code
  std::string text;  // "OK   bwrap: /usr/bin/bwrap 0.8.0" / "FIX  claude: not found; install ..."
};

// Parses "bubblewrap 0.8.0" → {0,8,0}; nullopt if it does not look like a version.
std::optional<std::vector<int>> parse_bwrap_version(const std::string& text);

std::vector<Line> report(const Facts& f);
int exit_code(const std::vector<Line>& lines);  // 0 only if no fatal line failed

Facts probe(const HostEnv& host);

}  // namespace blaude::app::doctor
