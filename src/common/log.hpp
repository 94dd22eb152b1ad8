// blaude's log: a file under $XDG_STATE_HOME/blaude (never the terminal, which belongs to the
// child while it runs). Level from --debug or BLAUDE_LOG (trace|debug|info|warn|error|off).
#pragma once
#include <spdlog/spdlog.h>

#include <string>

namespace blaude::log {

// Sets up the default spdlog logger. Never throws: if the file cannot be opened, logging is off.
// Returns the log file's path ("" if logging could not start).
// `enabled` false (e.g. --dry-run, which must change nothing on the host): a null logger.
std::string init(bool debug, bool enabled = true);

// The path init() would use for this environment.
std::string default_path();

}  // namespace blaude::log
