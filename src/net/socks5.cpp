#include "net/socks5.hpp"

#include <algorithm>

namespace blaude::net::socks5 {

namespace {
uint8_t at(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }
}  // namespace

std::variant<NeedMore, Error, Greeting> parse_greeting(std::string_view in) {
  if (in.empty()) return NeedMore{};
  if (at(in, 0) != kVersion) return Error{kGeneralFailure, "not a SOCKS5 greeting"};
  if (in.size() < 2) return NeedMore{};
  size_t n = at(in, 1);
  if (n == 0) return Error{kGeneralFailure, "SOCKS5 greeting offers no method"};
  if (in.size() < 2 + n) return NeedMore{};
  Greeting g;
  g.no_auth = std::any_of(in.begin() + 2, in.begin() + 2 + long(n), [](char c) { return c == 0; });
  g.consumed = 2 + n;
  return g;
}

std::variant<NeedMore, Error, Request> parse_request(std::string_view in) {
  if (in.size() < 4) {
    if (!in.empty() && at(in, 0) != kVersion) return Error{kGeneralFailure, "not a SOCKS5 request"};
    return NeedMore{};
  }
  if (at(in, 0) != kVersion) return Error{kGeneralFailure, "not a SOCKS5 request"};
  if (at(in, 2) != 0) return Error{kGeneralFailure, "SOCKS5 reserved byte is not zero"};
  const uint8_t cmd = at(in, 1), atyp = at(in, 3);
  size_t addr_len = 0, off = 4;
  switch (atyp) {
    case 1: addr_len = 4; break;
    case 4: addr_len = 16; break;
    case 3:
      if (in.size() < 5) return NeedMore{};
      addr_len = at(in, 4);
      off = 5;
      if (addr_len == 0) return Error{kGeneralFailure, "SOCKS5 empty domain name"};
      break;
    default:
      return Error{kAddressTypeNotSupported, "SOCKS5 address type " + std::to_string(atyp)};
  }
  if (in.size() < off + addr_len + 2) return NeedMore{};
  // The command is judged after the whole request arrived, so the reply is in order.
  if (cmd != 1) return Error{kCommandNotSupported, cmd == 3 ? "SOCKS5 UDP is not proxied" : "only SOCKS5 CONNECT is proxied"};
  Request r;
  uint16_t port = uint16_t(at(in, off + addr_len) << 8 | at(in, off + addr_len + 1));
  if (atyp == 3) {
    auto h = parse_host(in.substr(off, addr_len));
    if (auto* e = std::get_if<HostError>(&h)) return Error{kGeneralFailure, e->what};
    r.dest.host = std::get<Host>(std::move(h));
  } else {
    Address a;
    a.family = atyp == 1 ? Address::Family::V4 : Address::Family::V6;
    std::copy_n(reinterpret_cast<const uint8_t*>(in.data() + off), addr_len, a.bytes.begin());
    r.dest.host.ip = a;
    r.dest.host.name = format_address(a);
  }
  if (port == 0) return Error{kGeneralFailure, "SOCKS5 port 0"};
  r.dest.port = port;
  r.consumed = off + addr_len + 2;
  return r;
}

std::string method_reply(bool accept) { return std::string{char(kVersion), accept ? char(0) : char(0xff)}; }

std::string reply(uint8_t code) {
  return std::string{char(kVersion), char(code), 0, 1, 0, 0, 0, 0, 0, 0};
}

}  // namespace blaude::net::socks5
