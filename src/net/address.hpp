// An IP address as a value (no sockets): strict literal parsing, formatting, and the classes the
// egress decision cares about. Pure: no syscalls, so the decision can be table-tested and fuzzed.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blaude::net {

struct Address {
  enum class Family : uint8_t { V4, V6 };
  Family family = Family::V4;
  std::array<uint8_t, 16> bytes{};  // V4: the first 4 bytes

  bool v4() const { return family == Family::V4; }
  friend bool operator==(const Address&, const Address&) = default;
};

// Dotted-quad IPv4 (exactly four decimal parts, no leading zeros beyond "0") or an IPv6 literal
// without brackets or zone. inet_aton's short, octal and hex forms ("127.1", "0x7f.0.0.1",
// "2130706433") are not literals here: they are refused as host names elsewhere.
std::optional<Address> parse_address(std::string_view text);

// Canonical text: dotted quad, or RFC 5952 compressed IPv6 (no brackets).
std::string format_address(const Address& a);

// "1.2.3.4" or "[::1]": the form that can be followed by ":port".
std::string format_host_part(const Address& a);

// An IPv4 address carried inside IPv6 (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d) is judged
// as that IPv4 address: the kernel connects a mapped address to the IPv4 host.
Address embedded_v4_or_self(const Address& a);

// What kind of destination an address is. Only Public is reachable without an explicit rule;
// see decision.hpp for which rule allows which class.
enum class AddressClass : uint8_t {
  Public,
  Private,      // 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fc00::/7 (ULA), 64:ff9b:1::/48
                // (local-use NAT64)
  Loopback,     // 127/8, ::1
  LinkLocal,    // 169.254/16 (cloud metadata lives here), fe80::/10
  Unspecified,  // 0/8, ::  (connect to 0.0.0.0 reaches the local host)
  Multicast,    // 224/4, ff00::/8, 255.255.255.255
  Reserved,     // 240/4; the special-use ranges: 192.0.0.0/24 (protocol assignments), 198.18.0.0/15
                // (benchmarking), the documentation ranges 192.0.2.0/24, 198.51.100.0/24,
                // 203.0.113.0/24 and 2001:db8::/32
  Metadata,     // the clouds' instance metadata services: 169.254.169.254, 169.254.170.2 (ECS),
                // 100.100.100.200 (Alibaba), fd00:ec2::254 (AWS over IPv6)
  HostLocal,    // never from classify(): an address of this host's own interfaces (decision.hpp)
};
AddressClass classify(const Address& a);
const char* class_name(AddressClass c);  // "loopback", "link-local", ...

}  // namespace blaude::net
