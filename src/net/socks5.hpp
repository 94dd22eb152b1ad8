// SOCKS5 (RFC 1928) as the proxy speaks it: the greeting (only "no authentication": the socket
// is reachable from the sandbox alone) and CONNECT to an IPv4, IPv6 or domain-name destination
// (socks5h: the name is resolved on the host side, after the decision). BIND and UDP ASSOCIATE
// are answered "command not supported". Pure and bounded (a request is at most 262 bytes).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "net/host.hpp"
#include "net/http_head.hpp"  // NeedMore

namespace blaude::net::socks5 {

inline constexpr uint8_t kVersion = 5;

// Reply codes (RFC 1928 section 6).
enum Reply : uint8_t {
  kSucceeded = 0,
  kGeneralFailure = 1,
  kNotAllowed = 2,
  kNetworkUnreachable = 3,
  kHostUnreachable = 4,
  kConnectionRefused = 5,
  kTtlExpired = 6,
  kCommandNotSupported = 7,
  kAddressTypeNotSupported = 8,
};

struct Error {
  uint8_t reply = kGeneralFailure;  // what to answer (greeting errors: close without a request reply)
  std::string reason;
};

struct Greeting {
  bool no_auth = false;  // the client offered method 0
  size_t consumed = 0;
};

struct Request {
  Authority dest;
  size_t consumed = 0;
};

std::variant<NeedMore, Error, Greeting> parse_greeting(std::string_view in);
std::variant<NeedMore, Error, Request> parse_request(std::string_view in);

// The method selection: 0x05 0x00, or 0x05 0xFF (no acceptable method).
std::string method_reply(bool accept);
// A request reply with BND.ADDR 0.0.0.0:0 (clients only need the code).
std::string reply(uint8_t code);

}  // namespace blaude::net::socks5
