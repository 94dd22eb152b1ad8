// `blaude net log` and `blaude net allow`: the pure half. A session in proxy mode listens on
// $XDG_RUNTIME_DIR/blaude/net-PID.sock (live_control.hpp); these say where, which session a
// command means, and what a request line asks. Pure.
#pragma once
#include <string>
#include <variant>
#include <vector>

namespace blaude::net {

// The directory of the sessions' control sockets, from $XDG_RUNTIME_DIR: only a runtime dir
// under /run, which every sandbox has replaced by a tmpfs of its own (so no sandbox sees it).
// "" and `why` set when there is none.
std::string live_dir(const std::string& xdg_runtime_dir, std::string& why);
std::string live_socket_name(long pid);  // "net-PID.sock"
// The pid of a socket name, or -1 when `name` is not one.
long live_socket_pid(const std::string& name);

// Which running session a command means: `requested` (> 0: --session PID) or the only one.
std::variant<long, std::string> pick_session(const std::vector<long>& running, long requested);

// A request line (without its newline): "log", or "allow PATTERN".
struct LiveRequest {
  enum class Kind { Log, Allow } kind = Kind::Log;
  std::string pattern;
};
std::variant<LiveRequest, std::string> parse_live_request(const std::string& line);

}  // namespace blaude::net
