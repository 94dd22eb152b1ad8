// What the runners read (common/git_runners.hpp), end to end on real directories and the real
// git: git's operation state (rebase-merge/, sequencer/) and the config of the hook managers the
// hooks run. New or changed after the session: moved aside whole, and the host's git then runs
// nothing; the undo line brings it back, and then git runs it (the control).
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/report.hpp"
#include "audit/walk.hpp"
#include "catch.hpp"
#include "common/git_runners.hpp"
#include "temp_dir.hpp"

using namespace blaude;
using namespace blaude::audit;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const std::string& p, const std::string& text, mode_t mode = 0644) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << text;
  chmod(p.c_str(), mode);
}

int sh(const std::string& cmd) {
  return system(("env -i PATH=/usr/bin:/bin HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_EDITOR=true "
                 "GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b sh -c " +
                 sh_quote(cmd) + " >/dev/null 2>&1")
                    .c_str());
}

WalkInput input(const std::string& root) { return WalkInput{{root}, "/nonexistent", 5.0, 256}; }

std::vector<Applied> run_audit(const Snapshot& before, const std::string& root, std::vector<Finding>& findings,
                               std::string* report = nullptr) {
  Snapshot after = take_snapshot(input(root));
  findings = compare(before, after, AuditContext{{root}, "20250101T000000Z"});
  auto applied = apply_findings(findings, {root});
  if (report) *report = report_text(findings, applied, before, after);
  return applied;
}

// A repo with two commits, and a rebase stopped at a failing exec: rebase-merge/ in progress.
void repo_with_rebase(const std::string& w, bool stopped) {
  REQUIRE(sh("git init -q '" + w + "' && cd '" + w + "' && git commit -q --allow-empty -m one && "
             "git commit -q --allow-empty -m two") == 0);
  if (stopped) REQUIRE(sh("cd '" + w + "' && git rebase -q -x false HEAD~1") != 0);
}

}  // namespace

TEST_CASE("runners: hook managers are recognised by their hooks' text", "[audit][runner]") {
  auto has = [](std::string_view text, HookManager m) {
    auto v = hook_managers(text);
    return std::find(v.begin(), v.end(), m) != v.end();
  };
  CHECK(has("exec \"$INSTALL_PYTHON\" -mpre_commit hook-impl --config=.pre-commit-config.yaml", HookManager::PreCommit));
  CHECK(has("sh -e \"$s\" \"$@\"\n[ $c != 0 ] && echo \"husky - $n script failed\"", HookManager::Husky));
  CHECK(has("call_lefthook run \"pre-commit\" \"$@\"", HookManager::Lefthook));
  CHECK(has("if [ \"$SKIP_SIMPLE_GIT_HOOKS\" = \"1\" ]; then", HookManager::SimpleGitHooks));
  CHECK(has("# Entrypoint for Overcommit hook integration", HookManager::Overcommit));
  CHECK(hook_managers("#!/bin/sh\nmake test\n").empty());
  // Names, not shebangs: every file listed for a manager is its, and package.json is none's.
  for (auto m : {HookManager::PreCommit, HookManager::Husky, HookManager::Lefthook, HookManager::SimpleGitHooks,
                 HookManager::Overcommit})
    for (const auto& f : manager_files(m)) CHECK(f.rel != "package.json");
}

TEST_CASE("runners: a rebase the session made is moved aside whole; --continue then runs nothing", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws", mark = t.path + "/ran";
  repo_with_rebase(w, false);
  Snapshot before = take_snapshot(input(w));
  // The "session": a real rebase stopped, then an exec line in its todo.
  REQUIRE(sh("cd '" + w + "' && git rebase -q -x false HEAD~1") != 0);
  REQUIRE(fs::is_directory(w + "/.git/rebase-merge"));
  write(w + "/.git/rebase-merge/git-rebase-todo", "exec touch '" + mark + "'\n");
  std::vector<Finding> f;
  std::string report;
  auto a = run_audit(before, w, f, &report);
  INFO(report);
  REQUIRE(f.size() == 1);
  CHECK(f[0].role == Role::Runner);
  CHECK(f[0].path == w + "/.git/rebase-merge");
  CHECK(report.find("new dir, git's in-progress operation state") != std::string::npos);
  CHECK_FALSE(fs::exists(w + "/.git/rebase-merge"));  // no placeholder
  sh("cd '" + w + "' && git rebase --continue");
  CHECK_FALSE(fs::exists(mark));
  // Control: the undo line brings it back, and git runs the exec line.
  REQUIRE(sh("mv -f '" + a[0].aside + "' '" + f[0].path + "'") == 0);
  sh("cd '" + w + "' && git rebase --continue");
  CHECK(fs::exists(mark));
}

TEST_CASE("runners: a rebase present at the start stays; its todo changed is moved aside", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws", mark = t.path + "/ran";
  repo_with_rebase(w, true);
  write(w + "/.git/sequencer/todo", "pick 0000000 x\n");
  Snapshot before = take_snapshot(input(w));
  CHECK(before.files.at(w + "/.git/rebase-merge").kind == FileKind::Dir);
  std::vector<Finding> f;
  run_audit(before, w, f);
  CHECK(f.empty());  // unchanged: the user's own
  write(w + "/.git/rebase-merge/git-rebase-todo", "exec touch '" + mark + "'\n");
  run_audit(before, w, f);
  REQUIRE(f.size() == 1);
  CHECK(f[0].details[0].rfind("changed dir", 0) == 0);
  sh("cd '" + w + "' && git rebase --continue");
  CHECK_FALSE(fs::exists(mark));
}

TEST_CASE("runners: a state dir planted as a symlink is moved aside as a link", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws";
  repo_with_rebase(w, false);
  Snapshot before = take_snapshot(input(w));
  fs::create_directories(t.path + "/ws/elsewhere");
  fs::create_directory_symlink(t.path + "/ws/elsewhere", w + "/.git/sequencer");
  std::vector<Finding> f;
  run_audit(before, w, f);
  REQUIRE(f.size() == 1);
  CHECK(f[0].details[0].rfind("new symlink", 0) == 0);
  CHECK_FALSE(fs::is_symlink(w + "/.git/sequencer"));
  CHECK(fs::is_directory(t.path + "/ws/elsewhere"));
}

TEST_CASE("runners: pre-commit's config, new or changed, is moved aside; git commit then runs nothing", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws", mark = t.path + "/ran";
  REQUIRE(sh("git init -q '" + w + "'") == 0);
  // A stand-in for pre-commit's installed hook: runs every `entry:` of .pre-commit-config.yaml.
  write(w + "/.git/hooks/pre-commit",
        "#!/bin/sh\n# File generated by pre-commit: https://pre-commit.com\n"
        "[ -f .pre-commit-config.yaml ] || exit 0\n"
        "sed -n 's/^ *entry: //p' .pre-commit-config.yaml | while read -r c; do sh -c \"$c\"; done\n",
        0755);
  write(w + "/package.json", "{}\n");
  Snapshot before = take_snapshot(input(w));
  CHECK_FALSE(before.files.count(w + "/package.json"));
  write(w + "/.pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: touch '" + mark + "'\n");
  std::vector<Finding> f;
  std::string report;
  auto a = run_audit(before, w, f, &report);
  INFO(report);
  REQUIRE(f.size() == 1);
  CHECK(report.find("pre-commit's config, which the hooks of") != std::string::npos);
  sh("cd '" + w + "' && git commit -q --allow-empty -m x");
  CHECK_FALSE(fs::exists(mark));
  // Control: back in place, the commit runs it.
  REQUIRE(sh("mv -f '" + a[0].aside + "' '" + f[0].path + "'") == 0);
  sh("cd '" + w + "' && git commit -q --allow-empty -m y");
  CHECK(fs::exists(mark));
  // Present at the start and changed: moved aside too.
  fs::remove(mark);
  before = take_snapshot(input(w));
  run_audit(before, w, f);
  CHECK(f.empty());
  write(w + "/.pre-commit-config.yaml", "repos: []\n- entry: touch '" + mark + "'\n");
  run_audit(before, w, f);
  CHECK(f.size() == 1);
}

TEST_CASE("runners: husky v9's user hooks (no shebang) go with .husky, moved aside whole", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws", mark = t.path + "/ran";
  REQUIRE(sh("git init -q '" + w + "' && git -C '" + w + "' config core.hooksPath .husky/_") == 0);
  write(w + "/.husky/_/pre-commit", ". \"$(dirname \"$0\")/h\"\n", 0755);
  write(w + "/.husky/_/h",
        "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\n"
        "sh -e \"$s\" \"$@\"\nc=$?\n[ $c != 0 ] && echo \"husky - $n script failed (code $c)\"\nexit $c\n",
        0755);
  Snapshot before = take_snapshot(input(w));
  write(w + "/.husky/pre-commit", "touch '" + mark + "'\n");  // husky 9: no shebang
  write(w + "/.husky/_/pre-push", "touch '" + mark + "'\n", 0755);
  std::vector<Finding> f;
  std::string report;
  run_audit(before, w, f, &report);
  INFO(report);
  REQUIRE(f.size() == 1);  // .husky whole; the new hook in .husky/_ goes with it
  CHECK(f[0].path == w + "/.husky");
  sh("cd '" + w + "' && git commit -q --allow-empty -m x");
  CHECK_FALSE(fs::exists(mark));
}

TEST_CASE("runners: a manager named by husky's user hooks (.husky/<hook>) has its new config moved aside", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws";
  REQUIRE(sh("git init -q '" + w + "' && git -C '" + w + "' config core.hooksPath .husky/_") == 0);
  write(w + "/.husky/_/pre-commit", ". \"$(dirname \"$0\")/h\"\n", 0755);
  write(w + "/.husky/_/h", "#!/bin/sh\nsh -e \"$(dirname \"$(dirname \"$0\")\")/$(basename \"$0\")\"\n", 0755);
  write(w + "/.husky/pre-commit", "npx lefthook run pre-commit\n");
  write(w + "/.git/index.lefthook.yml", "not read: inside the gitdir\n");
  Snapshot before = take_snapshot(input(w));
  write(w + "/lefthook.yml", "pre-commit:\n  commands:\n    x:\n      run: touch /tmp/x\n");
  std::vector<Finding> f;
  run_audit(before, w, f);
  REQUIRE(f.size() == 1);
  CHECK(f[0].path == w + "/lefthook.yml");
  CHECK_FALSE(fs::exists(w + "/lefthook.yml"));
}

TEST_CASE("runners: a state dir past the digest's limit counts as changed, even when it was so at the start", "[audit][runner]") {
  TempDir t{"blaude-audit-runner"};
  const std::string w = t.path + "/ws";
  REQUIRE(sh("git init -q '" + w + "'") == 0);
  fs::create_directories(w + "/.git/rebase-apply");
  for (int i = 0; i <= 10000; ++i) std::ofstream(w + "/.git/rebase-apply/" + std::to_string(i)) << "";
  Snapshot before = take_snapshot(input(w));
  REQUIRE(before.files.at(w + "/.git/rebase-apply").too_big);
  std::vector<Finding> f;
  std::string report;
  run_audit(before, w, f, &report);
  INFO(report);
  REQUIRE(f.size() == 1);
  CHECK(report.find("larger than the audit reads whole") != std::string::npos);
  CHECK_FALSE(fs::exists(w + "/.git/rebase-apply"));
}
