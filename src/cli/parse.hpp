#pragma once
#include <string>
#include <variant>
#include <vector>

#include "cli/options.hpp"

namespace blaude::cli {

// Pure: argv (without argv[0]) → Options or a usage error.
std::variant<Options, UsageError> parse(const std::vector<std::string>& args);

// The text of --help.
std::string help_text();

}  // namespace blaude::cli
