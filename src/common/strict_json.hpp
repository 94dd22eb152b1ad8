// A JSON checker as strict as JavaScript's JSON.parse (Claude Code reads its files with it), and
// stricter where a lenient reader could be led to see another document than JSON.parse does: a
// file that passes here is read the same by nlohmann and by claude. Non-recursive (an explicit
// stack), bounded depth, linear in the text: safe on any bytes the sandbox wrote. Pure.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace blaude {

// Deeper than any file Claude Code writes (its state file nests about 8 levels), shallow enough
// that nlohmann's recursive dump and the key walks never come near the stack's end.
inline constexpr size_t kJsonMaxDepth = 128;

// "" when `text` is exactly one JSON value in JSON.parse's grammar, else why not (with the byte
// offset). Refused besides what JSON.parse refuses: nesting deeper than `max_depth`, invalid
// UTF-8 (a surrogate or overlong encoding included), a \u escape that is a lone surrogate, a
// byte order mark, and a key that appears twice in one object, compared after decoding escapes
// (JSON.parse keeps the last, a reader that keeps the first sees another document).
std::string strict_json_error(std::string_view text, size_t max_depth = kJsonMaxDepth);

// The document when strict_json_error() accepts it, else nullopt (and why, if asked). Never
// hands nlohmann text deeper than `max_depth`.
std::optional<nlohmann::ordered_json> strict_json_parse(std::string_view text, std::string* why = nullptr,
                                                        size_t max_depth = kJsonMaxDepth);

}  // namespace blaude
