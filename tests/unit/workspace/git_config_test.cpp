// git's config syntax as git-config(1) describes it, for the keys the sandbox follows.
#include "catch.hpp"
#include "common/git_config.hpp"
#include "sandbox/workspace/git_config.hpp"

using namespace blaude::sandbox::workspace;

namespace {
GitConfigFacts facts(const char* text) { return git_config_facts(parse_git_config(text)); }
}  // namespace

TEST_CASE("git config: sections, subsections, the legacy dotted form and keys on the header line") {
  auto e = parse_git_config("[Core]\n\tHooksPath = a\n[includeIf \"gitdir:~/W/\"] path = x.inc\n[section.Sub]\nk=v\n");
  REQUIRE(e.size() == 3);
  CHECK(e[0].section == "core");
  CHECK(e[0].key == "hookspath");
  CHECK(e[0].value == "a");
  CHECK(e[1].section == "includeif");
  CHECK(e[1].subsection == "gitdir:~/W/");  // case kept in a quoted subsection
  CHECK(e[1].value == "x.inc");
  CHECK(e[2].subsection == "sub");  // the legacy form is lower-cased, as git does
}

TEST_CASE("git config: values with quotes, escapes, comments and continuation lines") {
  auto f = facts("[core]\n  hooksPath = \" a # b \" ; comment\n");
  CHECK(f.hooks_path == " a # b ");
  CHECK(facts("[core]\nhooksPath = a\\\n/b\n").hooks_path == "a/b");
  CHECK(facts("[core]\nhooksPath = x\\ty # c\n").hooks_path == "x\ty");
  CHECK(facts("[core]\nhooksPath = trailing   \n").hooks_path == "trailing");
  CHECK(facts("[core]\r\nhooksPath = crlf\r\n").hooks_path == "crlf");
  CHECK(facts("\xEF\xBB\xBF[core]\nhooksPath = bom\n").hooks_path == "bom");
}

TEST_CASE("git config: the last hooksPath wins; every include path counts, whatever its condition") {
  auto f = facts("[core]\nhooksPath=a\n[core]\nhooksPath=b\n[include]\npath=one\n[includeIf \"onbranch:x\"]\npath=two\n"
                 "[includeIf \"hasconfig:remote.*.url:y\"]\npath = three\n");
  CHECK(f.hooks_path == "b");
  CHECK(f.includes == std::vector<std::string>{"one", "two", "three"});
}

TEST_CASE("git config: extensions.worktreeConfig as git reads booleans") {
  CHECK(facts("[extensions]\nworktreeConfig\n").worktree_config);
  CHECK(facts("[extensions]\nworktreeConfig = true\n").worktree_config);
  CHECK(facts("[extensions]\nworktreeConfig = 1\n").worktree_config);
  CHECK_FALSE(facts("[extensions]\nworktreeConfig = false\n").worktree_config);
  CHECK_FALSE(facts("[extensions]\nworktreeConfig =\n").worktree_config);
  CHECK_FALSE(facts("[extensions]\nworktreeConfig = true\n[extensions]\nworktreeConfig = off\n").worktree_config);
}

TEST_CASE("git config: a malformed header never lends its keys to the section before it") {
  auto f = facts("[core]\nhooksPath = ok\n[core \"unterminated]\nhooksPath = evil\n");
  CHECK(f.hooks_path == "ok");
  CHECK(facts("[core]\n[bad name\nhooksPath = evil\n").hooks_path.empty());
  CHECK(facts("hooksPath = outside\n").hooks_path.empty());
}

TEST_CASE("git config: the sandbox's view is the one parser's entries, up to where git gives up") {
  // git stops at line 3 ("bad config line 3") and runs nothing past it; a reader that skips
  // bad lines would take the hooksPath after it, one git never reads.
  const char* text = "[core]\nhooksPath = a\n= junk\nhooksPath = b\n";
  const auto parsed = blaude::parse_git_config(text);
  CHECK(parsed.error_line == 3);
  auto e = parse_git_config(text);
  REQUIRE(e.size() == parsed.entries.size());
  CHECK(facts(text).hooks_path == "a");
  // A key on the header's line, a legacy header: the same split as the audit's canonical key.
  e = parse_git_config("[filter \"Evil\"] clean = x\n[a.B]k\n");
  REQUIRE(e.size() == 2);
  CHECK((e[0].section == "filter" && e[0].subsection == "Evil" && e[0].key == "clean" && e[0].value == "x"));
  CHECK((e[1].section == "a" && e[1].subsection == "b" && e[1].key == "k" && !e[1].has_value));
}
