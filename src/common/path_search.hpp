// Where a command name resolves on a PATH-style list, the way execvp looks it up.
#pragma once
#include <optional>
#include <string>

namespace blaude {

// Relative PATH entries ("" or "bin"): execvp reads them against the cwd; the sandbox probe
// skips them, because the cwd inside the sandbox need not be the host's (/workspaces/<dir> in the
// seed's layout).
enum class RelativeEntries { FromCwd, Skip };

// A regular file (through symlinks) this process may execute.
bool is_executable_file(const std::string& path);

// The first "<dir>/<name>" that is a regular, executable file. A name containing '/' is
// checked as it is. nullopt when there is none.
std::optional<std::string> find_executable(const std::string& name, const std::string& path_env,
                                           RelativeEntries relative = RelativeEntries::FromCwd);

}  // namespace blaude
