// The allow-domain PATTERN language (--allow-domain and `allow-domain` policy lines):
//   example.com         that host only (any port)
//   *.example.com       strict subdomains of example.com (not example.com itself)
//   host:port           either of the above on one port only
//   10.0.0.5, [::1]     an IP literal (IPv6 in brackets; [::1]:8080 with a port)
//   *                   every destination (still proxied, decided and logged); *:443 on one port
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "net/address.hpp"

namespace blaude::net {

struct Pattern {
  enum class Kind : uint8_t { Any, Exact, Subdomains, Ip };
  Kind kind = Kind::Exact;
  std::string name;             // Exact: the host; Subdomains: the base ("example.com")
  std::optional<Address> ip;    // Kind::Ip
  std::optional<uint16_t> port; // nullopt: every port

  std::string text() const;     // canonical spelling, parseable again to the same Pattern
  friend bool operator==(const Pattern&, const Pattern&) = default;
};

struct PatternError {
  std::string what;  // `blaude: invalid --allow-domain pattern "x": <what>`
  std::string hint;  // one line: what to write instead
};

std::variant<Pattern, PatternError> parse_pattern(std::string_view text);

// `"TEXT": WHAT (HINT)`: how --allow-domain and `blaude net allow` both name a bad pattern.
std::string pattern_error_text(std::string_view text, const PatternError& e);

}  // namespace blaude::net
