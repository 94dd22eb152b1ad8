// Transparent capture's DNS (proxy mode): the relay inside the sandbox answers the sandbox's
// queries itself, never forwarding one, so a name is judged by name when a connection to it is
// made, not by an address DNS chose. Each name gets a synthetic address from 198.18.0.0/15 (the
// benchmark range, RFC 2544: no real destination uses it), remembered for the session, and a
// connection to that address is captured by the relay and asked of the proxy as `name:port`.
//
// The queries are written by the sandbox: parsed strictly and bounded (one question, no
// compression in it, labels of letters, digits, '-' and '_', at most 253 characters), without
// recursion. Pure.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace blaude::net::dns {

inline constexpr size_t kMaxMessage = 512;  // what a UDP query may be (larger: refused unread)
inline constexpr uint16_t kTypeA = 1, kTypeAAAA = 28, kClassIN = 1;
enum Rcode : uint8_t { kNoError = 0, kFormErr = 1, kServFail = 2, kNxDomain = 3, kNotImp = 4, kRefused = 5 };

struct Query {
  uint16_t id = 0;
  bool recursion_desired = false;
  std::string name;  // lower case, no trailing dot; "" for the root
  uint16_t type = 0, klass = 0;
};

struct Error {
  bool answerable = false;  // the header was readable: answer `rcode` (else drop the datagram)
  uint16_t id = 0;
  bool recursion_desired = false;
  uint8_t rcode = kFormErr;
  std::string reason;
};

std::variant<Query, Error> parse_query(std::string_view in);

// The answer to `q`: `rcode`, and when `a4` is set one A record (TTL `ttl`) for its question.
// An empty answer with kNoError is "no data" (the name exists, not that type). Pure.
std::string encode_answer(const Query& q, uint8_t rcode, std::optional<uint32_t> a4 = std::nullopt, uint32_t ttl = 60);
// An error answer with no question section (for queries parse_query refused but could answer).
std::string encode_error(const Error& e);

// The session's synthetic addresses: 198.18.0.0/15, one per name, given out in order from
// 198.18.0.2 (.0 and .1 are kept back), never reused. Host byte order. Bounded: past `capacity`
// names, assign() refuses (nullopt).
class AddressMap {
public:
  static constexpr uint32_t kBase = 0xC6120000u;  // 198.18.0.0
  static constexpr uint32_t kSize = 1u << 17;     // /15
  explicit AddressMap(size_t capacity = 65536);
  std::optional<uint32_t> assign(const std::string& name);
  // The name given `addr`, or nullptr when none was (or it is outside the range).
  const std::string* name_of(uint32_t addr) const;
  static bool in_range(uint32_t addr) { return (addr & ~(kSize - 1)) == kBase; }
  size_t size() const { return names_.size(); }

private:
  size_t capacity_;
  std::vector<std::string> names_;  // names_[i] has kBase + 2 + i
  std::unordered_map<std::string, uint32_t> by_name_;
};

}  // namespace blaude::net::dns
