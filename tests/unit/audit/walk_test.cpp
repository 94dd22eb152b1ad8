// The audit end to end on real directories and the real git: snapshot, the "session" plants
// code-bearing git configuration, snapshot again, compare, apply. Then the real `git status`
// must run nothing, the user's own settings stay, and each printed undo line restores the file.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/report.hpp"
#include "audit/walk.hpp"
#include "catch.hpp"
#include "git_sh.hpp"
#include "temp_dir.hpp"

using namespace blaude;
using namespace blaude::audit;
using blaude::testing::TempDir;
using blaude::testing::sh;
using blaude::testing::slurp;
namespace fs = std::filesystem;

namespace {

void write(const std::string& p, const std::string& text, mode_t mode = 0644) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << text;
  chmod(p.c_str(), mode);
}

void git_init(const std::string& dir) { REQUIRE(sh("git init -q '" + dir + "'") == 0); }

WalkInput input(const std::string& root) { return WalkInput{{root}, "/nonexistent", 5.0, 256}; }

std::vector<Applied> run_audit(const Snapshot& before, const std::string& root, std::vector<Finding>& findings,
                               std::string* report = nullptr) {
  Snapshot after = take_snapshot(input(root));
  findings = compare(before, after, AuditContext{{root}, "20250101T000000Z"});
  auto applied = apply_findings(findings, {root});
  if (report) *report = report_text(findings, applied, before, after);
  return applied;
}

}  // namespace

TEST_CASE("audit: new repos, hooks and keys are made inert; git status then runs nothing", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws", marker = t.path + "/ran";
  git_init(w);
  write(w + "/.git/config", slurp(w + "/.git/config") + "[core]\n\tpager = less -R\n");  // the user's own
  Snapshot before = take_snapshot(input(w));
  REQUIRE(before.complete);
  CHECK(before.repos.size() == 1);

  // The "session": a new nested repo with fsmonitor, a hook, an include, a bare repo.
  const std::string evil = "touch " + marker + "; false";
  git_init(w + "/deep/a/b/c/d/e/sub");
  REQUIRE(sh("git -C '" + w + "/deep/a/b/c/d/e/sub' config core.fsmonitor '" + evil + "'") == 0);
  write(w + "/.git/hooks/pre-commit", "#!/bin/sh\n" + evil + "\n", 0755);
  write(w + "/.git/config", slurp(w + "/.git/config") + "[include]\n\tpath = ../inc.cfg\n");
  write(w + "/inc.cfg", "[core]\n\tfsmonitor = " + evil + "\n");
  REQUIRE(sh("git init -q --bare '" + w + "/node_modules/x/bare.git'") == 0);
  write(w + "/node_modules/x/bare.git/config", "[core]\n\tbare = true\n\tsshCommand = " + evil + "\n");

  std::vector<Finding> findings;
  std::string report;
  auto applied = run_audit(before, w, findings, &report);
  INFO(report);
  CHECK(findings.size() == 5);  // sub config, hook, ws config (include), inc.cfg, bare config
  for (const auto& a : applied) CHECK(a.error.empty());
  CHECK(report.find("core.fsmonitor") != std::string::npos);
  CHECK(report.find("undo: mv -f") != std::string::npos);

  // The real git, as the user would run it on the host afterwards.
  CHECK(sh("cd '" + w + "/deep/a/b/c/d/e/sub' && git status >/dev/null 2>&1") == 0);
  CHECK(sh("cd '" + w + "' && git status >/dev/null 2>&1") == 0);
  CHECK(sh("cd '" + w + "' && git commit -q --allow-empty -m x >/dev/null 2>&1; true") == 0);
  CHECK_FALSE(fs::exists(marker));
  // The user's own pager stays; the include the session added does not.
  const std::string cfg = slurp(w + "/.git/config");
  CHECK(cfg.find("less -R") != std::string::npos);
  CHECK(cfg.find("inc.cfg") == std::string::npos);

  // Control: each undo line brings the planted file back, and then git runs it.
  for (size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].path.find("/sub/") == std::string::npos) continue;
    REQUIRE(!applied[i].aside.empty());
    REQUIRE(sh("mv -f '" + applied[i].aside + "' '" + findings[i].path + "'") == 0);
  }
  sh("cd '" + w + "/deep/a/b/c/d/e/sub' && git status >/dev/null 2>&1");
  CHECK(fs::exists(marker));
}

TEST_CASE("audit: an unchanged tree gives no findings and no report", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  git_init(t.path + "/ws");
  write(t.path + "/ws/.git/config", "[core]\n\tfsmonitor = mine\n");
  Snapshot before = take_snapshot(input(t.path + "/ws"));
  std::vector<Finding> f;
  std::string report;
  run_audit(before, t.path + "/ws", f, &report);
  CHECK(f.empty());
  CHECK(report.empty());
}

TEST_CASE("audit: a .git file pointing outside the roots is moved aside", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  fs::create_directories(w + "/sub");
  git_init(t.path + "/outside");
  Snapshot before = take_snapshot(input(w));
  write(w + "/sub/.git", "gitdir: " + t.path + "/outside/.git\n");
  std::vector<Finding> f;
  auto a = run_audit(before, w, f);
  REQUIRE(f.size() == 1);
  CHECK(f[0].role == Role::Pointer);
  CHECK_FALSE(fs::exists(w + "/sub/.git"));
  CHECK(fs::exists(a[0].aside));
}

// Dirs without subdirs are not listed (their link count says so, common/dir_list.hpp): what such
// a dir can hold, a `.git` file or a `.git` symlink, is still found, beside files and at depth.
TEST_CASE("audit: a .git file and a .git link in dirs without subdirs are found", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  for (const char* leaf : {"/n/a/b/c/d/one", "/n/a/b/c/d/two", "/m/three"})
    for (int i = 0; i < 40; ++i) write(w + leaf + "/f" + std::to_string(i), "x");
  git_init(t.path + "/outside");
  Snapshot before = take_snapshot(input(w));
  CHECK(before.repos.empty());
  write(w + "/n/a/b/c/d/one/.git", "gitdir: " + t.path + "/outside/.git\n");
  fs::create_directory_symlink(t.path + "/outside/.git", w + "/n/a/b/c/d/two/.git");
  std::vector<Finding> f;
  run_audit(before, w, f);
  REQUIRE(f.size() == 2);
  CHECK_FALSE(fs::exists(w + "/n/a/b/c/d/one/.git"));
  CHECK_FALSE(fs::is_symlink(w + "/n/a/b/c/d/two/.git"));
  CHECK(fs::exists(t.path + "/outside/.git/config"));  // the link's target is not the audit's
}

TEST_CASE("audit: a FIFO planted as a config does not hang the audit and is moved aside", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  git_init(w);
  Snapshot before = take_snapshot(input(w));
  fs::create_directories(w + "/n/.git");
  REQUIRE(mkfifo((w + "/n/.git/config").c_str(), 0644) == 0);
  write(w + "/n/.git/HEAD", "ref: refs/heads/main\n");
  std::vector<Finding> f;
  run_audit(before, w, f);
  REQUIRE(f.size() == 1);
  CHECK(f[0].act == Act::MoveAside);
}

TEST_CASE("audit: what the first walk did not reach is reported, not touched", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  git_init(w + "/a/b/c/repo");
  write(w + "/a/b/c/repo/.git/config", "[core]\n\tpager = mine\n");
  WalkInput shallow = input(w);
  shallow.max_depth = 1;
  Snapshot before = take_snapshot(shallow);
  CHECK_FALSE(before.complete);
  std::vector<Finding> f;
  std::string report;
  auto a = run_audit(before, w, f, &report);
  REQUIRE(f.size() == 1);
  CHECK(f[0].act == Act::None);
  CHECK(slurp(w + "/a/b/c/repo/.git/config").find("pager = mine") != std::string::npos);
  CHECK(report.find("did not cover everything") != std::string::npos);
}

TEST_CASE("audit: a linked worktree and submodule gitdirs are covered", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  git_init(w);
  REQUIRE(sh("cd '" + w + "' && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x") == 0);
  REQUIRE(sh("cd '" + w + "' && git worktree add -q wt2 2>/dev/null") == 0);
  fs::create_directories(w + "/.git/modules/lib/sub");
  write(w + "/.git/modules/lib/sub/HEAD", "ref: refs/heads/main\n");
  write(w + "/.git/modules/lib/sub/config", "[core]\n");
  Snapshot before = take_snapshot(input(w));
  // A dir of the test's own: the walk reads every file in a hooks dir, and the shared /tmp of a
  // loaded machine (a CI run's) can hold enough to spend the walk's deadline there.
  fs::create_directories(t.path + "/elsewhere");
  write(w + "/.git/worktrees/wt2/config.worktree", "[core]\n\thooksPath = " + t.path + "/elsewhere\n");
  write(w + "/.git/modules/lib/sub/config", "[core]\n\teditor = evil\n");
  std::vector<Finding> f;
  run_audit(before, w, f);
  CHECK(f.size() == 2);
}

TEST_CASE("audit: a hooks dir swapped for a symlink out of the roots: the link is moved, its target untouched",
          "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws", outside = t.path + "/home/.ssh";
  git_init(w);
  write(outside + "/post-checkout", "#!/bin/sh\necho mine\n", 0755);  // the user's file, elsewhere
  Snapshot before = take_snapshot(input(w));
  fs::rename(w + "/.git/hooks", w + "/.git/hooks.old");
  fs::create_directory_symlink(outside, w + "/.git/hooks");
  std::vector<Finding> findings;
  auto applied = run_audit(before, w, findings);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].path == w + "/.git/hooks");
  CHECK(findings[0].role == Role::Pointer);
  REQUIRE(applied.size() == 1);
  CHECK(applied[0].error.empty());
  CHECK_FALSE(fs::exists(fs::symlink_status(w + "/.git/hooks")));
  CHECK(fs::is_symlink(applied[0].aside));
  // Nothing of what the link pointed at was touched, under any name.
  CHECK(slurp(outside + "/post-checkout") == "#!/bin/sh\necho mine\n");
  CHECK(std::distance(fs::directory_iterator(outside), fs::directory_iterator()) == 1);
}

TEST_CASE("audit: a finding whose dir resolves outside the roots is refused", "[audit]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws", outside = t.path + "/elsewhere";
  write(outside + "/hook", "x");
  fs::create_directories(w);
  fs::create_directory_symlink(outside, w + "/link");
  Finding f;
  f.path = w + "/link/hook";
  f.act = Act::MoveAside;
  f.aside = f.path + ".blaude-audit-x";
  auto applied = apply_findings({f}, {w});
  REQUIRE(applied.size() == 1);
  CHECK_FALSE(applied[0].error.empty());
  CHECK(fs::exists(outside + "/hook"));
  // The control: with the target inside the roots the same finding is carried out.
  applied = apply_findings({f}, {t.path});
  CHECK(applied[0].error.empty());
  CHECK_FALSE(fs::exists(outside + "/hook"));
}

// Claude Code reads .claude and .mcp.json in whatever dir it starts in: a new one at any depth
// (a dir with subdirs, a leaf dir, a link, a plain file) is moved aside whole; one that was there
// at the start is the user's (the sandbox had it read-only) and stays.
TEST_CASE("audit: a new .claude or .mcp.json at any depth is moved aside, the user's stay", "[audit][claude]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  write(w + "/mine/.claude/commands/x.md", "mine");
  write(w + "/mine/.mcp.json", "{}");
  for (int i = 0; i < 3; ++i) write(w + "/a/b/c/d/leaf/f" + std::to_string(i), "x");
  fs::create_directories(w + "/a/b/c/d/e/sub");
  Snapshot before = take_snapshot(input(w));
  CHECK(before.claude_names.size() == 2);
  write(w + "/a/b/c/d/e/.claude/settings.json", R"({"hooks":{}})");  // in a dir with subdirs
  write(w + "/a/b/c/d/leaf/.mcp.json", R"({"mcpServers":{}})");     // in a leaf dir
  fs::create_directory_symlink("/tmp", w + "/a/b/.claude");          // a link
  write(w + "/mine/.claude/commands/y.md", "a new command in a dir the user had");  // not the walk's
  std::vector<Finding> f;
  std::string report;
  auto a = run_audit(before, w, f, &report);
  REQUIRE(f.size() == 3);
  for (const auto& x : f) CHECK(x.act == Act::MoveAside);
  CHECK_FALSE(fs::exists(w + "/a/b/c/d/e/.claude"));
  CHECK_FALSE(fs::exists(w + "/a/b/c/d/leaf/.mcp.json"));
  CHECK_FALSE(fs::is_symlink(w + "/a/b/.claude"));
  CHECK(fs::exists("/tmp"));
  CHECK(fs::exists(w + "/mine/.claude/commands/x.md"));
  CHECK(fs::exists(w + "/mine/.mcp.json"));
  CHECK(report.find("claude started here would run") != std::string::npos);
  CHECK(report.find("claude started here would start the MCP servers") != std::string::npos);
  for (const auto& x : a) CHECK(fs::exists(fs::symlink_status(x.aside)));
}

TEST_CASE("audit: claude --worktree's .claude (its worktrees only) stays; one with anything else goes", "[audit][claude]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  fs::create_directories(w + "/sub");
  Snapshot before = take_snapshot(input(w));
  write(w + "/.claude/worktrees/x/file", "a worktree's checkout");
  write(w + "/sub/.claude/worktrees/y/file", "x");
  write(w + "/sub/.claude/settings.json", R"({"hooks":{}})");  // the control: more than worktrees
  write(w + "/deep/.claude/worktrees", "a file, not a dir");
  // Claude Code's command sandbox leaves an empty .cc-writes: inert; one with a file in it is not.
  fs::create_directories(w + "/sb/.claude/.cc-writes");
  fs::create_directories(w + "/sb2/.claude/.cc-writes");
  fs::create_directories(w + "/sb2/.claude/worktrees");
  write(w + "/sbf/.claude/.cc-writes/settings.json", R"({"hooks":{}})");
  fs::create_directories(w + "/sbe/.claude");  // empty: judged as any new .claude
  std::vector<Finding> f;
  run_audit(before, w, f, nullptr);
  REQUIRE(f.size() == 4);
  CHECK(fs::exists(w + "/.claude/worktrees/x/file"));
  CHECK(fs::exists(w + "/sb/.claude/.cc-writes"));
  CHECK(fs::exists(w + "/sb2/.claude/worktrees"));
  CHECK_FALSE(fs::exists(w + "/sub/.claude"));
  CHECK_FALSE(fs::exists(w + "/deep/.claude"));
  CHECK_FALSE(fs::exists(w + "/sbf/.claude"));
  CHECK_FALSE(fs::exists(w + "/sbe/.claude"));
}

// The sandbox pins a protected path's parents, so this needs a way around the mounts; the audit
// does not rely on that: the same name as another object is not the user's.
TEST_CASE("audit: a .claude made again where the user's was (its parent renamed away) is moved aside", "[audit][claude]") {
  TempDir t{"blaude-audit-walk"};
  const std::string w = t.path + "/ws";
  write(w + "/p/.claude/settings.json", R"({"model":"opus"})");
  Snapshot before = take_snapshot(input(w));
  fs::rename(w + "/p", w + "/p2");
  write(w + "/p/.claude/settings.json", R"({"hooks":{}})");
  std::vector<Finding> f;
  std::string report;
  run_audit(before, w, f, &report);
  // Both: the user's own under its new name is a new name there (what is in it is not read; it
  // goes aside with an undo line like any other).
  REQUIRE(f.size() == 2);
  CHECK_FALSE(fs::exists(w + "/p/.claude"));
  CHECK_FALSE(fs::exists(w + "/p2/.claude"));
  CHECK(report.find("not the one there at the start") != std::string::npos);
}
