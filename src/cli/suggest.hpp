// "Did you mean": an unknown `--word` within two edits of one of blaude's options is almost
// surely a typo of it (--dryrun, --no-netwrok), and passing it on would hand claude a flag it
// does not know, or a prompt, while the sandbox runs without what the user asked for. Never for
// one of claude's own options (`--init` is two edits from `--git`): those pass through.
#pragma once
#include <optional>
#include <span>
#include <string_view>

namespace blaude::cli {

// Edit distance with adjacent transpositions (optimal string alignment): `--no-netwrok` is one
// edit from `--no-network`, as a user would count it.
size_t edit_distance(std::string_view a, std::string_view b);

// The blaude option `word` is a typo of, if any: `word` starts with "--", its name (before any
// '=') is not one of claude's options, and it is within 2 edits of a blaude option's name (the
// first such in table order). A blaude flag given a value (`--git=x`) returns that flag.
std::optional<std::string_view> suggest_option(std::string_view word);

// claude's own long options (claude_options.cpp): those of `claude --help` and of every
// subcommand's help, of the version scripts/install-test-claude.sh installs.
std::span<const std::string_view> claude_options();
bool is_claude_option(std::string_view name);

}  // namespace blaude::cli
