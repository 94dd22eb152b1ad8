// The repositories' start in the journal (app/journal.hpp): any snapshot reads back equal (bytes
// of every value included), and what this did not write is refused whole, never half read.
#include <string>

#include "app/journal.hpp"
#include "catch.hpp"

using namespace blaude;
using namespace blaude::app;

namespace {

audit::Snapshot sample() {
  audit::Snapshot s;
  audit::FileRecord c;
  c.role = audit::Role::Config;
  c.content = std::string("[core]\n\tfsmonitor = \"x y\"\n\0\xff end", 32);
  c.repo = "/w/.git";
  c.mode = 0644;
  s.files["/w/.git/config"] = c;
  audit::FileRecord h;
  h.role = audit::Role::Hook;
  h.kind = audit::FileKind::Symlink;
  h.digest = "ab12";
  h.link = "../x y";
  h.mode = 0755;
  s.files["/w/.git/hooks/pre commit"] = h;
  audit::FileRecord r;
  r.role = audit::Role::Runner;
  r.kind = audit::FileKind::Dir;
  r.too_big = true;
  r.reader = "git rebase --continue";
  s.files["/w/.git/rebase-merge"] = r;
  s.repos = {"/w/.git", "/w/sub/.git"};
  s.own_hook_dirs = {"/w/.git/hooks"};
  s.configured_hook_dirs = {"/w/.husky"};
  s.unchecked = {"/w/deep/.git"};
  s.claude_names = {{"/w/.claude", "1:2"}, {"/w/a/.mcp.json", ""}};
  s.complete = false;
  return s;
}

}  // namespace

TEST_CASE("journal: the repositories' start reads back equal", "[journal]") {
  audit::WalkInput w;
  w.roots = {"/w", "/home/u/.claude"};
  w.home = "/home/u";
  const audit::Snapshot s = sample();
  const std::string text = git_journal_text(w, s);
  audit::WalkInput w2;
  audit::Snapshot s2;
  REQUIRE(parse_git_journal(text, w2, s2));
  CHECK(w2.roots == w.roots);
  CHECK(w2.home == w.home);
  CHECK(s2.files == s.files);
  for (const auto& [p, r] : s.files) CHECK(s2.files.at(p).repo == r.repo);
  CHECK(s2.repos == s.repos);
  CHECK(s2.own_hook_dirs == s.own_hook_dirs);
  CHECK(s2.configured_hook_dirs == s.configured_hook_dirs);
  CHECK(s2.unchecked == s.unchecked);
  CHECK(s2.claude_names == s.claude_names);
  CHECK(s2.complete == s.complete);
}

TEST_CASE("journal: a repositories' start it did not write is refused", "[journal]") {
  audit::WalkInput w;
  w.roots = {"/w"};
  const std::string text = git_journal_text(w, sample());
  audit::WalkInput w2;
  audit::Snapshot s2;
  // Every cut but the whole is refused (a cut at a line's end too: the last line gives the length).
  for (size_t n = 0; n < text.size(); ++n) {
    INFO(n);
    CHECK_FALSE(parse_git_journal(text.substr(0, n), w2, s2));
  }
  CHECK_FALSE(parse_git_journal("blaude-git-journal 2\n", w2, s2));
  CHECK_FALSE(parse_git_journal(text + "repo 2f\n", w2, s2));  // after the end
  const std::string body = text.substr(0, text.rfind("end "));
  auto with = [&](const std::string& line) {
    const std::string b = body + line;
    return b + "end " + std::to_string(b.size()) + "\n";
  };
  CHECK(parse_git_journal(with(""), w2, s2));  // the control: the same body reads
  CHECK_FALSE(parse_git_journal(with("file 9 0 0 0 2f - - - - - -\n"), w2, s2));  // no such role
  CHECK_FALSE(parse_git_journal(with("repo 72656c\n"), w2, s2));  // a relative path
  CHECK_FALSE(parse_git_journal(with("repo 2fzz\n"), w2, s2));    // not hex
  CHECK_FALSE(parse_git_journal(with("what 2f\n"), w2, s2));
}
