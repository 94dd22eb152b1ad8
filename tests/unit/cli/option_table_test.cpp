// The one options table: the parser, --help, the man page and the three completions all come
// from it; the did-you-mean check never catches one of claude's options.
#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/docs.hpp"
#include "cli/option_table.hpp"
#include "cli/parse.hpp"
#include "cli/suggest.hpp"

using namespace blaude::cli;
using Args = std::vector<std::string>;

namespace {

std::string roff_name(std::string_view n) {
  std::string out;
  for (char c : n) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

std::variant<Options, UsageError> p(const Args& a) { return parse(a); }
std::string err(const Args& a) {
  auto r = parse(a);
  REQUIRE(std::holds_alternative<UsageError>(r));
  return std::get<UsageError>(r).message;
}

}  // namespace

TEST_CASE("every row reaches --help, the man page and the completions") {
  const std::string help = help_text();
  const std::string man = man_page("9.9", "2026-01-01");
  const std::string bash = bash_completion(), zsh = zsh_completion(), fish = fish_completion();
  for (const OptionSpec& s : option_table()) {
    INFO(s.name);
    CHECK(help.find(option_synopsis(s)) != std::string::npos);
    CHECK(man.find("\\fB" + roff_name(s.name) + "\\fR") != std::string::npos);
    CHECK(bash.find(std::string(s.name)) != std::string::npos);
    CHECK(zsh.find("'" + std::string(s.name) + ":") != std::string::npos);
    CHECK(fish.find("-l " + std::string(s.name.substr(2)) + " ") != std::string::npos);
    if (!s.short_name.empty()) CHECK(fish.find("-s " + std::string(s.short_name.substr(1))) != std::string::npos);
    CHECK_FALSE(s.help.empty());
    // Each row is what the parser takes: a flag sets its field, a value option takes its value.
    if (s.arg == Arg::None && s.flag) {
      auto o = std::get<Options>(p({std::string(s.name)}));
      CHECK(o.*(s.flag));
    }
  }
  for (const CommandSpec& c : command_table()) {
    INFO(c.name);
    CHECK(help.find("  " + std::string(c.name)) != std::string::npos);
    CHECK(man.find("\\fB" + roff_name(c.name) + "\\fR") != std::string::npos);
    CHECK(bash.find(std::string(c.name)) != std::string::npos);
    CHECK(fish.find("-a " + std::string(c.name) + " ") != std::string::npos);
  }
  CHECK(man.find(".TH BLAUDE 1 \"2026\\-01\\-01\" \"blaude 9.9\"") != std::string::npos);
}

TEST_CASE("did you mean: a near miss of a blaude option stops with exit 2") {
  CHECK(edit_distance("--no-netwrok", "--no-network") == 1);  // a transposition is one edit
  CHECK(edit_distance("--dryrun", "--dry-run") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("--init", "--git") == 2);
  CHECK(suggest_option("--no-netwrok") == "--no-network");
  CHECK(suggest_option("--dryrun") == "--dry-run");
  CHECK(suggest_option("--gti") == "--git");
  CHECK(suggest_option("--mount-x") == "--mount");  // distance 2
  CHECK(suggest_option("--dryrun=1") == "--dry-run");
  CHECK(err({"-c", "--dryrun"}) == "unknown option --dryrun; did you mean --dry-run?");
  auto e = std::get<UsageError>(p({"--no-netwrok"}));
  CHECK(e.hint.find("blaude -- --no-netwrok") != std::string::npos);
  CHECK(err({"--git=yes"}) == "--git takes no value (got --git=yes)");
  // Not near anything, or not an option: still claude's.
  for (const char* w : {"--resume", "--model", "--completely-different", "-dryrun", "dryrun", "--", "--x"}) {
    INFO(w);
    CHECK_FALSE(suggest_option(w));
  }
  CHECK(std::get<Options>(p({"--model", "opus", "--completely-different"})).claude_args ==
        Args{"--model", "opus", "--completely-different"});
}

TEST_CASE("did you mean never catches one of claude's own options") {
  auto all = claude_options();
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
  // The ones that are close to a blaude option: the reason for the list.
  for (const char* c : {"--init", "--tmux", "--all", "--cwd", "--sso", "--push", "--tag", "--with", "--yes"}) {
    INFO(c);
    CHECK(is_claude_option(c));
    auto o = p({c});
    REQUIRE(std::holds_alternative<Options>(o));
    CHECK(std::get<Options>(o).claude_args == Args{c});
  }
  bool some_close = false;
  for (std::string_view c : all) {
    INFO(c);
    CHECK_FALSE(suggest_option(c));
    CHECK_FALSE(suggest_option(std::string(c) + "=v"));
    for (const OptionSpec& s : option_table()) some_close = some_close || (c != s.name && edit_distance(c, s.name) <= 2);
  }
  CHECK(some_close);  // control: without the list, some claude option would be caught
  // A blaude option spelled like claude's stays blaude's before -- (the seed), claude's after.
  CHECK(std::get<Options>(p({"--debug=hooks"})).claude_args == Args{"--debug=hooks"});
}

TEST_CASE("-m ~ and ~/: expanded with $HOME; ~user refused") {
  CHECK(expand_home("~", "/home/u") == "/home/u");
  CHECK(expand_home("~/x", "/home/u") == "/home/u/x");
  CHECK(expand_home("~/x", "/home/u/") == "/home/u/x");
  CHECK(expand_home("/a/~/b", "/home/u") == "/a/~/b");
  CHECK(expand_home("./~x", "/home/u") == "./~x");
  CHECK(expand_home("~/x", "") == "~/x");
  auto o = std::get<Options>(p({"-m", "~/x:rw", "--mount=~/y"}));
  CHECK(o.mounts[0].path == "~/x");  // expanded by the app layer, which knows $HOME
  CHECK(o.mounts[0].rw);
  CHECK(o.mounts[1].path == "~/y");
  CHECK(err({"-m", "~bob/x"}).find("only ~ and ~/ are expanded") != std::string::npos);
  CHECK(std::get<UsageError>(p({"--mount=~bob"})).hint.find("./~bob") != std::string::npos);
}

TEST_CASE("--version text: version and revision, or says there was none") {
  CHECK(version_text("0.1.0", "1a2b3c4d5e6f") == "blaude 0.1.0 (git 1a2b3c4d5e6f)\n");
  CHECK(version_text("0.1.0", "1a2b3c4d5e6f-dirty") == "blaude 0.1.0 (git 1a2b3c4d5e6f-dirty)\n");
  CHECK(version_text("0.1.0", "") == "blaude 0.1.0 (built outside git: revision unknown)\n");
}
