// Lexical path helpers shared by the planner and the probe (pure string work, no syscalls).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace blaude {

// Collapses "//", "." and ".." without touching the filesystem; keeps the result absolute
// when the input is. "/a/b/../c/" → "/a/c".
std::string normalize(std::string_view path);
// a + "/" + b, normalised; b may be absolute (then a is ignored).
std::string join(std::string_view a, std::string_view b);
std::string dirname_of(std::string_view path);
std::string basename_of(std::string_view path);
// path == prefix or path lies below prefix (component-wise; "/ab" is not under "/a").
bool is_under(std::string_view path, std::string_view prefix);
// is_under for any of the prefixes.
bool is_under_any(std::string_view path, const std::vector<std::string>& prefixes);
// path relative to prefix ("" when equal); only meaningful when is_under(path, prefix).
std::string relative_to(std::string_view path, std::string_view prefix);

}  // namespace blaude
