// Host names and authorities as the proxy sees them: one canonical spelling for matching (so
// "Example.COM." and "example.com" are the same destination) and a strict grammar, so what the
// decision compares is what the resolver will look up.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "net/address.hpp"

namespace blaude::net {

// A destination host: a canonical DNS name or an IP literal.
struct Host {
  std::string name;                // canonical name; for an IP: format_address of it
  std::optional<Address> ip;       // set when the host is an IP literal
  bool is_ip() const { return ip.has_value(); }
  std::string text() const;        // "example.com", "10.0.0.5", "[::1]"
};

struct HostError {
  std::string what;  // e.g. "\"ex ample.com\" is not a host name"
};

// A host name or IP literal (IPv6 without brackets here). Lower-cased, one trailing dot dropped.
// Names: ASCII letters, digits, '-', '_' in labels of 1..63, at most 253 in all; the last label
// must not be all digits and no label may start with "0x" when all others are numeric (inet_aton
// would read "127.1" or "0x7f.1" as an address; such names are refused, not resolved).
std::variant<Host, HostError> parse_host(std::string_view text);

struct Authority {
  Host host;
  uint16_t port = 0;  // 0: none given
};

// "host", "host:port", "1.2.3.4:80", "[v6]" or "[v6]:port". Port 1..65535, decimal, no sign or
// leading zeros. `require_port`: CONNECT's authority must name one.
std::variant<Authority, HostError> parse_authority(std::string_view text, bool require_port);

// Strict decimal port 1..65535 ("08", "+1", "0" refused).
std::optional<uint16_t> parse_port(std::string_view text);

// "host:port" with IPv6 in brackets: how a destination is named in messages and the summary.
std::string destination_text(const Host& h, uint16_t port);

}  // namespace blaude::net
