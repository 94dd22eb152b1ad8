// The in-sandbox relay: blaude's own binary, re-run inside the sandbox (read-only, at a fixed
// path), with no policy of its own. It only moves bytes:
//  - the proxy port (127.0.0.1:3128) → the bind-mounted proxy socket, where blaude decides;
//  - a forwarded port (an allowed loopback host:port, e.g. the fake API of ANTHROPIC_BASE_URL)
//    → the proxy socket with `CONNECT host:port` first, so clients that skip the proxy for
//    localhost still reach the host service they were allowed to (and the proxy still decides);
//  - connections blaude hands over the control socket for --publish → 127.0.0.1:PORT inside.
// Killing it only takes the sandbox's own network away: blaude and the host are unaffected.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace blaude::inside {

struct RelayListener {
  int fd = -1;             // a bound, listening TCP socket (inherited)
  std::string connect_to;  // empty: plain proxy port; else "host:port" to CONNECT to
};

struct RelayConfig {
  std::string proxy_socket;
  std::vector<RelayListener> listeners;
  int control_fd = -1;             // SOCK_SEQPACKET from blaude, for --publish; -1: none
  std::vector<uint16_t> published; // the ports the control socket may name
  size_t max_connections = 1024;
};

// Runs the relay's loop; returns only when every listener and the control socket are gone.
int run_relay(const RelayConfig& cfg);

}  // namespace blaude::inside
