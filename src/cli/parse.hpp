#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cli/options.hpp"

namespace blaude::cli {

// Pure: argv (without argv[0]) → Options or a usage error.
std::variant<Options, UsageError> parse(const std::vector<std::string>& args);

// The text of --help (help.cpp), from the option table.
std::string help_text();
struct OptionSpec;
// "-m, --mount PATH[:rw]": how --help and the man page name an option.
std::string option_synopsis(const OptionSpec& s);

// Pieces of parse(), exposed for tests and for other front ends.
bool valid_env_name(std::string_view name);  // [A-Za-z_][A-Za-z0-9_]*
std::variant<std::pair<std::string, std::string>, UsageError> parse_env_assignment(
    std::string_view spec);                                  // KEY=VALUE, split at the first '='
std::variant<Mount, UsageError> parse_mount(std::string_view spec);  // PATH[:rw|:ro]
// A -m path with ~ (alone) or ~/ at its start, with `home` in its place (also when no shell
// expanded it: quoted, or --mount=~/x). Anything else, and any path when `home` is empty, as is.
std::string expand_home(std::string_view path, std::string_view home);

}  // namespace blaude::cli
