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

// The text of --help.
std::string help_text();

// Pieces of parse(), exposed for tests and for other front ends.
bool valid_env_name(std::string_view name);  // [A-Za-z_][A-Za-z0-9_]*
std::variant<std::pair<std::string, std::string>, UsageError> parse_env_assignment(
    std::string_view spec);                                  // KEY=VALUE, split at the first '='
std::variant<Mount, UsageError> parse_mount(std::string_view spec);  // PATH[:rw|:ro]

}  // namespace blaude::cli
