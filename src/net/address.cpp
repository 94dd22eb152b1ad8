#include "net/address.hpp"

#include <arpa/inet.h>

#include <algorithm>

namespace blaude::net {

namespace {

// inet_pton(AF_INET) already rejects the short/octal/hex forms; it still accepts "01.2.3.4" on
// some libcs, so leading zeros are checked here too.
bool strict_dotted_quad(std::string_view s) {
  int parts = 0;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('.', i);
    if (j == std::string_view::npos) j = s.size();
    std::string_view p = s.substr(i, j - i);
    if (p.empty() || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    if (!std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    ++parts;
    i = j + 1;
  }
  return parts == 4;
}

bool in_v4(const Address& a, uint8_t b0, int bits, uint8_t b1 = 0) {
  uint16_t v = uint16_t(a.bytes[0] << 8 | a.bytes[1]);
  uint16_t p = uint16_t(b0 << 8 | b1);
  uint16_t mask = uint16_t(0xffff << (16 - bits));
  return (v & mask) == (p & mask);
}

bool all_zero(const Address& a, size_t from, size_t to) {
  return std::all_of(a.bytes.begin() + long(from), a.bytes.begin() + long(to), [](uint8_t b) { return b == 0; });
}

}  // namespace

std::optional<Address> parse_address(std::string_view text) {
  if (text.empty() || text.size() > 45) return std::nullopt;
  std::string s(text);
  Address a;
  if (s.find(':') == std::string::npos) {
    if (!strict_dotted_quad(text)) return std::nullopt;
    in_addr v4{};
    if (inet_pton(AF_INET, s.c_str(), &v4) != 1) return std::nullopt;
    a.family = Address::Family::V4;
    std::copy_n(reinterpret_cast<const uint8_t*>(&v4), 4, a.bytes.begin());
    return a;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, s.c_str(), &v6) != 1) return std::nullopt;
  a.family = Address::Family::V6;
  std::copy_n(reinterpret_cast<const uint8_t*>(&v6), 16, a.bytes.begin());
  return a;
}

std::string format_address(const Address& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.v4() ? AF_INET : AF_INET6, a.bytes.data(), buf, sizeof buf);
  return buf;
}

std::string format_host_part(const Address& a) {
  return a.v4() ? format_address(a) : "[" + format_address(a) + "]";
}

Address embedded_v4_or_self(const Address& a) {
  if (a.v4()) return a;
  const auto& b = a.bytes;
  bool mapped = all_zero(a, 0, 10) && b[10] == 0xff && b[11] == 0xff;
  bool compat = all_zero(a, 0, 12) && !all_zero(a, 12, 16) && !(all_zero(a, 12, 15) && b[15] == 1);
  bool nat64 = b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && all_zero(a, 4, 12);
  if (!mapped && !compat && !nat64) return a;
  Address v4;
  v4.family = Address::Family::V4;
  std::copy_n(b.begin() + 12, 4, v4.bytes.begin());
  return v4;
}

AddressClass classify(const Address& in) {
  const Address a = embedded_v4_or_self(in);
  const auto& b = a.bytes;
  if (a.v4()) {
    auto is = [&](uint8_t x, uint8_t y, uint8_t z, uint8_t w) { return b[0] == x && b[1] == y && b[2] == z && b[3] == w; };
    if (is(169, 254, 169, 254) || is(169, 254, 170, 2) || is(100, 100, 100, 200)) return AddressClass::Metadata;
    if (b[0] == 127) return AddressClass::Loopback;
    if (b[0] == 0) return AddressClass::Unspecified;
    if (in_v4(a, 169, 16, 254)) return AddressClass::LinkLocal;
    if (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255) return AddressClass::Multicast;
    if (in_v4(a, 224, 4)) return AddressClass::Multicast;
    if (in_v4(a, 240, 4)) return AddressClass::Reserved;
    if ((b[0] == 192 && b[1] == 0 && (b[2] == 0 || b[2] == 2)) || (b[0] == 198 && (b[1] & 0xfe) == 18) ||
        (b[0] == 198 && b[1] == 51 && b[2] == 100) || (b[0] == 203 && b[1] == 0 && b[2] == 113))
      return AddressClass::Reserved;
    if (b[0] == 10 || in_v4(a, 172, 12, 16) || in_v4(a, 192, 16, 168) || in_v4(a, 100, 10, 64))
      return AddressClass::Private;
    return AddressClass::Public;
  }
  if (all_zero(a, 0, 16)) return AddressClass::Unspecified;
  if (all_zero(a, 0, 15) && b[15] == 1) return AddressClass::Loopback;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return AddressClass::LinkLocal;
  if (b[0] == 0xff) return AddressClass::Multicast;
  // fd00:ec2::254
  if (b[0] == 0xfd && b[1] == 0x00 && b[2] == 0x0e && b[3] == 0xc2 && all_zero(a, 4, 14) && b[14] == 0x02 && b[15] == 0x54)
    return AddressClass::Metadata;
  if ((b[0] & 0xfe) == 0xfc) return AddressClass::Private;
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return AddressClass::Reserved;
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0x00 && b[5] == 0x01)
    return AddressClass::Private;
  return AddressClass::Public;
}

const char* class_name(AddressClass c) {
  switch (c) {
    case AddressClass::Public: return "public";
    case AddressClass::Private: return "private";
    case AddressClass::Loopback: return "loopback";
    case AddressClass::LinkLocal: return "link-local";
    case AddressClass::Unspecified: return "unspecified";
    case AddressClass::Multicast: return "multicast";
    case AddressClass::Reserved: return "special-use";
    case AddressClass::Metadata: return "cloud metadata";
    case AddressClass::HostLocal: return "this host's own";
  }
  return "?";
}

}  // namespace blaude::net
