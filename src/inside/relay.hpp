// The in-sandbox relay: blaude's own binary, re-run inside the sandbox (read-only, at a fixed
// path), with no policy of its own. It only moves bytes:
//  - the proxy port (127.0.0.1:3128) → a connection to blaude's proxy, where blaude decides,
//    asked for over the inherited control channel (net/fdpass.hpp): blaude answers with one end
//    of a fresh socketpair. The proxy has no address, path or name anyone else could use;
//  - a forwarded port (an allowed loopback host:port, e.g. the fake API of ANTHROPIC_BASE_URL)
//    → the same, with `CONNECT host:port` first, so clients that skip the proxy for localhost
//    still reach the host service they were allowed to (and the proxy still decides);
//  - connections blaude hands over the control channel for --publish → 127.0.0.1:PORT inside;
//  - transparent capture (net/dns.hpp): the sandbox's DNS queries, answered with a synthetic
//    address per name, and connections to the captured ports of those addresses → the same as a
//    forwarded port, with `CONNECT name:port` (an address the relay never gave: `CONNECT ip:port`,
//    which the proxy refuses like any other such literal).
// Killing it only takes the sandbox's own network away: blaude and the host are unaffected.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace blaude::inside {

struct RelayListener {
  int fd = -1;             // a bound, listening TCP socket (inherited)
  std::string connect_to;  // empty: plain proxy port; else "host:port" to CONNECT to
  bool capture = false;    // a captured port: the destination is the address it was reached at
};

struct RelayConfig {
  std::vector<RelayListener> listeners;
  int control_fd = -1;             // SOCK_SEQPACKET to blaude (inherited)
  int dns_fd = -1;                 // a bound UDP socket answering DNS (capture), or -1
  std::vector<uint16_t> published; // the ports the control channel may name
  size_t max_connections = 1024;
};

// Runs the relay's loop; returns only when every listener and the control channel are gone.
int run_relay(const RelayConfig& cfg);

}  // namespace blaude::inside
