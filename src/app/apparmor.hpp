// AppArmor's unprivileged-userns restriction (Ubuntu 24.04+) and the profile that lets bwrap
// create user namespaces despite it. Decisions are pure over AppArmorFacts; probe() and
// install() are the only host-touching parts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/failure.hpp"
#include "common/host_env.hpp"

namespace blaude::app::apparmor {

inline constexpr const char* kProfilePath = "/etc/apparmor.d/bwrap";
inline constexpr const char* kRestrictSysctl =
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns";

struct Facts {
  bool module_loaded = false;             // /sys/module/apparmor exists
  bool parser_found = false;              // apparmor_parser on PATH (or in /sbin, /usr/sbin)
  std::optional<std::string> restrict_value;  // the sysctl's content, if the file exists
  std::optional<std::string> profile_text;    // /etc/apparmor.d/bwrap, if it is a regular file
  bool profile_path_exists = false;       // anything at that path (a symlink, a directory...)
  std::string bwrap_path;                 // the bwrap blaude uses, resolved ("" if none)
  bool is_root = false;
  std::string self_exe;                   // blaude's own binary, absolute ("" if unknown)
  std::string sudo;                       // sudo's absolute path ("" if none)
};

enum class Verdict {
  NotActive,        // no AppArmor: nothing to do
  NotRestricted,    // AppArmor, but unprivileged user namespaces are allowed
  Installed,        // our profile for this bwrap is already there
  ForeignProfile,   // something else is at kProfilePath: do not overwrite it
  NoBwrap,          // restricted, but there is no bwrap to write a profile for
  NeedsRoot,        // restricted, profile missing, not root
  Install,          // restricted, profile missing, root: write and load it
};

// The profile for this bwrap binary (the bash blaude hardcoded /usr/bin/bwrap).
std::string profile_text(const std::string& bwrap_path);

bool restricted(const Facts& f);
Verdict decide(const Facts& f);

// What fix-apparmor prints for a verdict that needs no action (nothing for Install): lines for
// stdout, or the failure to report.
struct Outcome {
  int exit_code;
  std::vector<std::string> lines;
  std::optional<Failure> failure;
};
Outcome describe(Verdict v, const Facts& f);

// NeedsRoot with sudo at hand: the privileged step, run through sudo by absolute paths. sudo's
// secure_path would not find ~/.local/bin/blaude, and root's PATH would not find the user's
// bwrap: so `sudo /abs/blaude fix-apparmor /abs/bwrap`. Empty when it cannot be built.
std::vector<std::string> sudo_argv(const Facts& f);
// The command a user runs as root when blaude cannot (no sudo): it works as printed.
std::string root_command(const Facts& f);

// Startup warning lines when the restriction is active and no usable profile exists.
std::vector<std::string> startup_warning(const Facts& f);

// `bwrap_path`: the bwrap to write the profile for (resolved); "" for none.
Facts probe(const HostEnv& host, const std::string& bwrap_path);
// Writes kProfilePath atomically (0644) and loads it with apparmor_parser -r. Outcome as above.
Outcome install(const Facts& f);

}  // namespace blaude::app::apparmor
