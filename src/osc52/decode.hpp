// What an intercepted sequence asks for, decided without I/O: which selections, and the text to
// put there after base64 decoding, UTF-8 validation and removal of control characters. A read
// request (`?`) is refused here: answering it would leak the host clipboard into the sandbox.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "osc52/sequence.hpp"

namespace blaude::osc52 {

enum class Target : uint8_t { Clipboard, Primary, Secondary };
const char* target_name(Target t);

struct Copy {
  std::vector<Target> targets;  // distinct, in the order Pc named them
  std::string text;             // valid UTF-8 without control characters but TAB, LF, CR
  size_t removed_controls = 0;  // how many control characters were taken out
  // "" for text; else the MIME type of `text`'s bytes (image/png from the clipboard stand-ins,
  // broker/clip_service.hpp), which the helper is told, and `text` is not text.
  std::string type;
};

struct Verdict {
  std::optional<Copy> copy;  // empty: nothing is copied
  std::string note;          // why not, or what was changed (for the log); never the payload
};

// `Pc` to selections: empty, c, s → CLIPBOARD; p → PRIMARY; q → SECONDARY; digits (cut
// buffers) and anything else are ignored.
std::vector<Target> parse_targets(std::string_view pc);

// Strict RFC 4648 base64 (padding optional); nullopt on any byte outside the alphabet.
std::optional<std::string> base64_decode(std::string_view text);

// Removes every control character (Unicode category Cc) except TAB, LF and CR. `utf8` must be
// valid UTF-8. Adds the number removed to `removed`.
std::string strip_controls(std::string_view utf8, size_t& removed);

bool valid_utf8(std::string_view bytes);

Verdict interpret(const Sequence& s);

}  // namespace blaude::osc52
