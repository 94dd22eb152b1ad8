// Managed (enterprise) settings in /etc/claude-code name programs claude runs: hook commands,
// apiKeyHelper, statusLine, ... Their directories must be visible in the sandbox (the empty /opt
// would otherwise hide /opt/corp/bin), but only when root owns them: a user-writable dir named
// by a root-owned file must not become a way to smuggle programs in.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::sandbox::bwrap {

// The command strings of one managed-settings document: claude_setting_commands
// (common/claude_keys.hpp, the one list of keys that name programs). Pure.
std::vector<std::string> managed_commands(const nlohmann::json& doc);

// The absolute paths a command string mentions (whitespace-split, one pair of quotes stripped,
// normalised). Pure.
std::vector<std::string> managed_command_paths(const std::string& command);

// The directory to expose for an executable path: its parent, unless that is too shallow
// (/opt) or already visible (/usr, /etc, /bin, /sbin, /lib*). "" when nothing is to be bound. Pure.
std::string managed_dir_for(const std::string& exe);

// Reads <etc_dir>/managed-settings.json and <etc_dir>/managed-settings.d/*.json (each only when
// root-owned and not group/other-writable) and returns the dirs to bind, deduplicated, in order
// of appearance. Parse failures go to `warnings`. `owner` is the trusted owner (root; tests
// running unprivileged pass their own uid).
std::vector<ManagedDir> probe_managed_dirs(const std::string& etc_dir, std::vector<std::string>& warnings,
                                           uid_t owner = 0);

}  // namespace blaude::sandbox::bwrap
