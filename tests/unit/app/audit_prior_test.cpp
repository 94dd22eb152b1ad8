// The audit's snapshot before the session starts from the sandbox probe's walk (one
// walk of the workspace before the child, not two). It must record exactly what its own full
// walk records, on a tree with every shape of repository the walks know, and the comparison
// with a full walk afterwards must find nothing in an unchanged tree.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/audit.hpp"
#include "audit/diff.hpp"
#include "audit/walk.hpp"
#include "catch.hpp"
#include "temp_dir.hpp"
#include "sandbox/bwrap/probe/scan.hpp"

using namespace blaude;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const std::string& p, const std::string& text) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

void gitdir(const std::string& g, const std::string& config = "[core]\n") {
  fs::create_directories(g + "/objects");
  fs::create_directories(g + "/refs/heads");
  fs::create_directories(g + "/hooks");
  write(g + "/HEAD", "ref: refs/heads/main\n");
  write(g + "/config", config);
}

// Every shape: nested repos at depth, under node_modules, a bare repository, a bare-shaped dir
// that also holds a `.git`, `.git` files (one sorting before the repo it points into), a `.git`
// symlink, a linked worktree, submodule gitdirs, hooks, an include, a relative hooksPath.
void build(const std::string& w) {
  gitdir(w + "/.git", "[core]\n\thooksPath = tools/hooks\n[include]\n\tpath = ../shared.inc\n");
  write(w + "/shared.inc", "[alias]\n\tx = !true\n");
  write(w + "/tools/hooks/pre-commit", "#!/bin/sh\n");
  write(w + "/.git/hooks/post-checkout", "#!/bin/sh\n");
  gitdir(w + "/.git/modules/lib");
  gitdir(w + "/.git/worktrees/wt2");
  write(w + "/.git/worktrees/wt2/commondir", "../..\n");
  write(w + "/.git/worktrees/wt2/gitdir", w + "/wt2/.git\n");
  write(w + "/wt2/.git", "gitdir: " + w + "/.git/worktrees/wt2\n");
  write(w + "/-first/.git", "gitdir: ../.git/modules/lib\n");  // '-' sorts before '.git'
  write(w + "/lib/.git", "gitdir: ../.git/modules/lib\n");
  for (const char* p : {"packages/a", "packages/b/deep/er", "node_modules/dep", "z/y/x/w/v"})
    gitdir(w + "/" + p + "/.git", "[core]\n\thooksPath = .husky\n");
  write(w + "/packages/a/.husky/pre-push", "#!/bin/sh\n");
  gitdir(w + "/bare.git");
  gitdir(w + "/odd");  // bare-shaped and with a .git of its own
  gitdir(w + "/odd/.git");
  fs::create_directories(w + "/linked");
  fs::create_directory_symlink("../packages/a/.git", w + "/linked/.git");
  // One gitdir behind several `.git` files: the first one reached decides the worktree its
  // relative hooksPath is resolved against, so both walks must reach them in the same order.
  gitdir(w + "/shared-gd", "[core]\n\thooksPath = hooks2\n");
  for (const char* s : {"m", "b", "x", "a", "q", "c", "k"}) write(w + "/" + s + "/.git", "gitdir: ../shared-gd\n");
  for (int i = 0; i < 30; ++i) write(w + "/src/d" + std::to_string(i % 7) + "/f" + std::to_string(i), "x");
}

audit::WalkInput input(const std::string& root) { return audit::WalkInput{{root}, "/nonexistent", 5.0, 256}; }

std::vector<audit::PriorWalk> prior_of(const std::string& root) {
  auto ws = sandbox::bwrap::scan_workspace(root, "/nonexistent", "");
  auto p = app::prior_walk(ws);
  REQUIRE(p);
  return {*p};
}

}  // namespace

TEST_CASE("audit prior walk: the snapshot from the probe's walk equals the audit's own walk", "[audit]") {
  TempDir t{"blaude-audit-prior"};
  const std::string w = t.path + "/ws";
  build(w);
  const audit::Snapshot full = audit::take_snapshot(input(w));
  const audit::Snapshot reused = audit::take_snapshot(input(w), prior_of(w));
  CHECK(full.repos.size() == 10);
  CHECK(reused.repos == full.repos);  // the same repositories, reached in the same order
  CHECK(reused.own_hook_dirs == full.own_hook_dirs);
  CHECK(reused.configured_hook_dirs == full.configured_hook_dirs);
  CHECK(reused.complete == full.complete);
  REQUIRE(reused.files.size() == full.files.size());
  for (const auto& [path, rec] : full.files) {
    INFO(path);
    auto it = reused.files.find(path);
    REQUIRE(it != reused.files.end());
    CHECK(it->second == rec);
    CHECK(it->second.repo == rec.repo);
  }
  CHECK(reused.dirs == full.dirs);
  // Before from the prior, after from a full walk, nothing changed: nothing to report.
  CHECK(audit::compare(reused, full, audit::AuditContext{{w}, "20250101T000000Z"}).empty());
}

TEST_CASE("audit prior walk: it is what the snapshot reads (a prior that found nothing gives no repos)", "[audit]") {
  // The control: were the prior ignored, the snapshot would find the repositories itself.
  TempDir t{"blaude-audit-prior"};
  const std::string w = t.path + "/ws";
  build(w);
  audit::PriorWalk empty;
  empty.root = w;
  CHECK(audit::take_snapshot(input(w), {empty}).repos.empty());
  // A prior of another root is not used for this one.
  empty.root = t.path;
  CHECK_FALSE(audit::take_snapshot(input(w), {empty}).repos.empty());
}

TEST_CASE("audit prior walk: a bare-shaped root is walked, not taken from the probe", "[audit]") {
  TempDir t{"blaude-audit-prior"};
  const std::string w = t.path + "/ws";
  gitdir(w);
  gitdir(w + "/sub/.git");
  const audit::Snapshot full = audit::take_snapshot(input(w));
  const audit::Snapshot reused = audit::take_snapshot(input(w), prior_of(w));
  CHECK(reused.repos == full.repos);
  CHECK(reused.files.size() == full.files.size());
}

TEST_CASE("audit prior walk: a truncated probe walk is not reused", "[audit]") {
  sandbox::bwrap::WorkspaceScan ws;
  ws.root = "/x";
  ws.truncated = true;
  CHECK_FALSE(app::prior_walk(ws));
  ws.truncated = false;
  CHECK(app::prior_walk(ws));
}
