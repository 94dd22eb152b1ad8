// POSIX shell quoting, for the command lines blaude prints (--debug, --dry-run, hints).
#pragma once
#include <string>
#include <vector>

namespace blaude {

// Bare when every character is safe in a shell word, else single quotes ('\'' for a quote).
std::string shell_quote(const std::string& word);
// The words joined by spaces: a line a user can paste into a POSIX shell.
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace blaude
