// The broker's framing, the ssh-agent protocol's: a uint32 length (big-endian), then the body.
// Pure.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace blaude::broker {

struct Frame {
  std::string_view body;
  size_t consumed = 0;
};
struct NeedMore {};
struct Malformed {
  std::string why;
};
// The first whole message of `stream`, NeedMore, or Malformed (a length of 0 or past `max`).
std::variant<Frame, NeedMore, Malformed> next_frame(std::string_view stream, uint32_t max);
// `body` with its length in front.
std::string frame(std::string_view body);

}  // namespace blaude::broker
