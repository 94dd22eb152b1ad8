// What is generated from the option table besides --help: the man page and the shell
// completions (tools/gen_docs writes them at build time; `make install` installs them), and the
// --version text. Pure: strings in, strings out.
#pragma once
#include <string>
#include <string_view>

namespace blaude::cli {

// blaude.1 in roff (man(7)); `date` goes into .TH (the source's commit date, for reproducible builds).
std::string man_page(std::string_view version, std::string_view date);

// Completion scripts that know blaude's options, complete --exec's CMD as a command, -m as a
// directory, --env as a variable name, and hand every other word to claude's own completion
// (when the shell has one for claude; else they offer claude's options from claude_options()).
std::string bash_completion();
std::string zsh_completion();
std::string fish_completion();

// `blaude --version`: "blaude 0.1.0 (git 1a2b3c4d5e6f)"; `revision` as the build found it: a
// commit id (maybe with "-dirty"), or "" when neither git nor an exported REVISION file had one.
std::string version_text(std::string_view version, std::string_view revision);

}  // namespace blaude::cli
