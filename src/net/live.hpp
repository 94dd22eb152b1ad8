// `blaude net log` and `blaude net allow`: the pure half. A session in proxy mode listens on
// $XDG_RUNTIME_DIR/blaude/net-PID.sock (live_control.hpp); these say where, which session a
// command means, and what a request line asks. Pure.
#pragma once
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace blaude::net {

// The directory of the sessions' control sockets, from $XDG_RUNTIME_DIR: only a runtime dir
// under /run, which every sandbox has replaced by a tmpfs of its own (so no sandbox sees it).
// "" and `why` set when there is none.
std::string live_dir(const std::string& xdg_runtime_dir, std::string& why);

// The runtime dir to use when $XDG_RUNTIME_DIR is unset (su, sudo -u, cron, a bare ssh
// command): the user's /run/user/UID when `uid_dir_private` (the caller saw it is a real
// directory, not a link, owned by the user, mode 0700: logind's). The sandbox replaces it with
// a tmpfs whatever the environment says. Not /tmp (the default mode shares it with the sandbox)
// nor $HOME (partly visible inside): with neither, "" and no control socket.
std::string live_runtime_dir(const std::string& xdg_runtime_dir, unsigned uid, bool uid_dir_private);
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

// What a client is sent and prints of a line that names what the sandbox chose (a host name, a
// reason quoting it): one line of plain visible text (common/shown.hpp), at most kMaxLiveLine
// bytes, cut with "..." past that.
constexpr size_t kMaxLiveLine = 512;
std::string live_line(const std::string& text);

}  // namespace blaude::net
