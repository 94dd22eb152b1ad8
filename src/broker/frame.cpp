#include "broker/frame.hpp"

namespace blaude::broker {

std::variant<Frame, NeedMore, Malformed> next_frame(std::string_view s, uint32_t max) {
  if (s.size() < 4) return NeedMore{};
  const uint32_t n = (uint32_t(uint8_t(s[0])) << 24) | (uint32_t(uint8_t(s[1])) << 16) |
                     (uint32_t(uint8_t(s[2])) << 8) | uint32_t(uint8_t(s[3]));
  if (n == 0) return Malformed{"an empty message"};
  if (n > max) return Malformed{"a message of " + std::to_string(n) + " bytes (at most " + std::to_string(max) + ")"};
  if (s.size() - 4 < n) return NeedMore{};
  return Frame{s.substr(4, n), size_t(n) + 4};
}

std::string frame(std::string_view body) {
  std::string out;
  out.reserve(body.size() + 4);
  const auto n = uint32_t(body.size());
  out.push_back(char(n >> 24));
  out.push_back(char(n >> 16));
  out.push_back(char(n >> 8));
  out.push_back(char(n));
  out.append(body);
  return out;
}

}  // namespace blaude::broker
