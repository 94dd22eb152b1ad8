// The clipboard stand-ins' messages to the broker's clipboard service (broker/clip_service.hpp),
// inside one broker frame (broker/frame.hpp: a uint32 length, then the body). Pure, strict,
// bounded: both sides parse with these and nothing else.
//
//   request body: OP SEL TLEN TYPE[TLEN] DATA...
//     OP   'c' copy (DATA is what to copy), 'p' paste (read; no DATA), 't' the type list (no DATA)
//     SEL  'c' CLIPBOARD, 'p' PRIMARY
//     TLEN 0..kMaxType; TYPE is a MIME type or X target name ("" = text), of [A-Za-z0-9/._+;=-]
//   reply body:   STATUS DATA...
//     STATUS 0: done (DATA: what was read; for 't' the types, one a line), 1: refused (DATA: why,
//     one line of printable ASCII for the tool's stderr)
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blaude::clip {

inline constexpr const char* kSocketName = "clipboard";
inline constexpr size_t kMaxType = 64;
inline constexpr size_t kMaxText = 1 << 20;        // a text copy or paste, bytes
inline constexpr size_t kMaxImage = 16 << 20;      // an image copy or paste, bytes
inline constexpr size_t kMaxBody = 3 + kMaxType + kMaxImage;

enum class Op : char { Copy = 'c', Paste = 'p', Types = 't' };
enum class Sel : char { Clipboard = 'c', Primary = 'p' };

struct Request {
  Op op = Op::Copy;
  Sel sel = Sel::Clipboard;
  std::string type;
  std::string data;
};

struct Reply {
  bool ok = false;
  std::string data;  // what was read, or why not
};

// What a type names: text (every spelling of plain text, and ""), a PNG image, or another type.
enum class Kind { Text, Png, Other };
Kind kind_of(std::string_view type);

std::string encode(const Request& r);
// nullopt (with `why`) on anything that is not exactly a request of this format.
std::optional<Request> parse_request(std::string_view body, std::string& why);

std::string encode(const Reply& r);
std::optional<Reply> parse_reply(std::string_view body);

// The PNG file signature.
bool looks_like_png(std::string_view data);

}  // namespace blaude::clip
