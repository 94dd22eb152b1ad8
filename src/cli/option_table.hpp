// blaude's own options and commands, as ONE table: the parser, --help, the man page, the shell
// completions and the did-you-mean check all read it, so none of them can drift from the others.
// Adding an option = one row in option_table.cpp (plus its field in options.hpp); see the
// comment above kOptions there.
#pragma once
#include <optional>
#include <span>
#include <string_view>

#include "cli/options.hpp"

namespace blaude::cli {

enum class Arg {
  None,   // a flag: sets `flag` to true
  Value,  // `--opt VALUE` or `--opt=VALUE` (or `-m VALUE`), handed to `apply`
  Rest,   // takes the rest of the line verbatim (--exec)
};

// What the shell completions offer for the option's value (and, for Rest, what follows).
enum class Complete { None, Dir, EnvAssign, Command };

// Options the parser treats specially (their rows exist for --help, the man page, completions).
enum class Special { None, Help, Version, Exec };

// Stores the value in the options, or says why it is bad (a usage error, exit 2).
using ApplyFn = std::optional<UsageError> (*)(Options&, std::string_view value);

struct OptionSpec {
  std::string_view name;             // "--mount"
  std::string_view short_name = "";  // "-m"
  std::string_view metavar = "";     // "PATH[:rw]" (Arg::Value, Arg::Rest)
  Arg arg = Arg::None;
  bool Options::*flag = nullptr;     // Arg::None: the field set to true
  ApplyFn apply = nullptr;           // Arg::Value
  Complete complete = Complete::None;
  Special special = Special::None;
  std::string_view help = "";        // one line of --help
  std::string_view man = "";         // the man page's paragraph ("" = `help`)
};

// A word blaude takes as the first argument.
struct CommandSpec {
  std::string_view name;
  std::string_view help;
};

std::span<const OptionSpec> option_table();
std::span<const CommandSpec> command_table();

// The row a word names exactly (long name, or short name); nullptr for any other word.
// `--opt=VALUE` matches a Value option by the part before '='.
const OptionSpec* find_option(std::string_view word);

}  // namespace blaude::cli
