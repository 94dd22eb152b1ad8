// blaude's log: a file under $XDG_STATE_HOME/blaude (never the terminal, which belongs to the
// child while it runs). Level from --debug or BLAUDE_LOG (trace|debug|info|warn|error|off).
// Logging starts in memory, and the file is opened by the prepare step only: a run that stops
// on bad input (or --dry-run) leaves nothing on disk, yet what it logged before the launch still
// reaches the file when the session does start.
#pragma once
#include <spdlog/spdlog.h>

#include <string>

#include "common/host_env.hpp"

namespace blaude::log {

// A default logger that drops everything: spdlog's own default writes to the terminal, which
// must never happen (main calls this first; init() replaces it).
void off();
// Sets up the default logger, buffering in memory. Never throws.
void init(const HostEnv& host, bool debug);
// Opens the log file (its directory created 0700) and writes what was buffered. Returns its
// path, "" when logging is off or the file cannot be opened (then logging stops quietly).
std::string open_file();
// The path the log uses for this host.
std::string default_path(const HostEnv& host);
// blaude's state dir, the log's: $XDG_STATE_HOME/blaude (absolute only), else
// ~/.local/state/blaude. The sandbox planner guards it (a planted link there would redirect
// the log's appends), so both ask this one function.
std::string state_dir(const std::string& xdg_state_home, const std::string& home);

}  // namespace blaude::log
