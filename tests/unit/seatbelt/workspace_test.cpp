// What the Seatbelt profile protects, from the workspace walk and the shared repository scan:
// over a fake host (every class of code-bearing git path), and once over the real file system
// (a linked worktree, as `git worktree add` makes it).
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "sandbox/seatbelt/workspace.hpp"
#include "sandbox/workspace/workspace_walk.hpp"
#include "seatbelt/fixtures.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::seatbelt;
using namespace blaude::sandbox::seatbelt::testing;
namespace ws = blaude::sandbox::workspace;
namespace fs = std::filesystem;

namespace {

const std::string P = kProject;

bool has(const WorkspaceProtections& w, const std::string& path, bool tree) {
  for (const auto& p : w.protect)
    if (p.path == path) return p.tree == tree;
  return false;
}

}  // namespace

TEST_CASE("seatbelt workspace: every class of git code-bearing path is protected (D1)", "[seatbelt]") {
  FakeFs f;
  // The project's repository with a husky hooksPath, a submodule, a nested repo, a worktree of
  // a nested repo whose .git is a file, and a bare repository used as a common dir.
  f.file(P + "/.git/config", "[core]\n\thooksPath = .husky/_\n");
  f.file(P + "/.git/HEAD", "ref: refs/heads/main\n");
  f.dir(P + "/.git/hooks");
  f.dir(P + "/.husky/_");
  f.file(P + "/.git/modules/lib/config", "[core]\n\tworktree = ../../../lib\n");
  f.file(P + "/.git/modules/lib/HEAD", "x\n");
  f.file(P + "/lib/.git", "gitdir: ../.git/modules/lib\n");
  f.file(P + "/packages/app/.git/config", "");
  f.dir(P + "/packages/app/.git/hooks");
  f.file(P + "/repos/app.git/config", "[core]\n\tbare = true\n");
  f.file(P + "/repos/app.git/HEAD", "x\n");
  f.dir(P + "/repos/app.git/objects");
  f.dir(P + "/repos/app.git/refs");
  f.file(P + "/repos/app.git/worktrees/w1/commondir", "../..\n");
  f.file(P + "/repos/app.git/worktrees/w1/gitdir", P + "/w1/.git\n");
  f.file(P + "/w1/.git", "gitdir: " + P + "/repos/app.git/worktrees/w1\n");
  ws::WorkspaceWalk walk;
  walk.git = {{ws::FoundGit::Dir, P + "/.git"},
              {ws::FoundGit::File, P + "/lib/.git"},
              {ws::FoundGit::Dir, P + "/packages/app/.git"},
              {ws::FoundGit::Bare, P + "/repos/app.git"},
              {ws::FoundGit::File, P + "/w1/.git"}};
  walk.dotnames = {{".env", S_IFREG},      {".env.example", S_IFREG}, {".envrc", S_IFREG}, {".vscode", S_IFDIR},
                   {"api/.mcp.json", S_IFREG}, {".bashrc", S_IFREG},    {".env", S_IFREG},   {"venv/.env", S_IFDIR}};
  walk.dotnames[6].rel = "web/.env.local";
  ws::GitScan git = ws::scan_repos(f, walk.git, {}, kHome);
  auto w = protections_from(P, walk, git, f);

  CHECK(has(w, P + "/.git/config", false));
  CHECK(has(w, P + "/.git/hooks", true));
  CHECK(has(w, P + "/.husky", true));  // hooksPath .husky/_ runs .husky/<hook>
  CHECK(has(w, P + "/.git/modules/lib/config", false));
  CHECK(has(w, P + "/lib/.git", false));  // the pointer file: `gitdir: ./evil`
  CHECK(has(w, P + "/packages/app/.git/config", false));
  CHECK(has(w, P + "/packages/app/.git/hooks", true));
  CHECK(has(w, P + "/repos/app.git/config", false));
  CHECK(has(w, P + "/repos/app.git/hooks", true));  // missing: cannot be created
  CHECK(has(w, P + "/repos/app.git/worktrees/w1/commondir", false));
  CHECK(has(w, P + "/repos/app.git/worktrees/w1/gitdir", false));
  CHECK(has(w, P + "/w1/.git", false));
  // The other names: existing .env* files, rc files, editor dirs; and xclaude's root names.
  CHECK(has(w, P + "/.env", false));
  CHECK(has(w, P + "/.envrc", false));
  CHECK(has(w, P + "/web/.env.local", false));
  CHECK(has(w, P + "/.vscode", true));
  CHECK(has(w, P + "/api/.mcp.json", false));
  CHECK(has(w, P + "/.bashrc", false));
  CHECK(has(w, P + "/.env.production", false));
  // Controls: a template and a venv named .env are not protected, nor is anything of git's
  // that must stay writable for commits.
  CHECK_FALSE(has(w, P + "/.env.example", false));
  CHECK_FALSE(has(w, P + "/venv/.env", true));
  CHECK_FALSE(has(w, P + "/venv/.env", false));
  for (const auto& p : w.protect) {
    INFO(p.path);
    CHECK(p.path.find("/objects") == std::string::npos);
    CHECK(p.path.find("/refs") == std::string::npos);
  }
  CHECK(w.git_dirs.empty());  // every gitdir is inside the project

  // Through the profile: the attacks the review lists (D1) are all denied.
  auto h = mac_host();
  h.protect = w.protect;
  auto forms = forms_of(decide(h, claude_request()).ctx);
  for (const std::string& v : std::vector<std::string>{P + "/.git/modules/lib/config", P + "/.git/modules/lib/hooks/post-checkout",
                               P + "/lib/.git", P + "/w1/.git", P + "/repos/app.git/worktrees/w1/commondir",
                               P + "/repos/app.git/hooks/pre-commit", P + "/.husky/pre-commit", P + "/.husky/_/h"}) {
    INFO(v);
    CHECK_FALSE(sbpl::decide(forms, "file-write*", v));
  }
  CHECK(sbpl::decide(forms, "file-write*", P + "/repos/app.git/objects/ab"));  // control: commits work
  CHECK(sbpl::decide(forms, "file-write*", P + "/.git/modules/lib/index"));
}

TEST_CASE("seatbelt workspace: a linked worktree on the real file system", "[seatbelt]") {
  std::string t = (fs::temp_directory_path() / "blaude-sbws-XXXXXX").string();
  REQUIRE(::mkdtemp(t.data()));
  t = fs::canonical(t).string();
  const std::string main = t + "/main", wt = t + "/wt";
  fs::create_directories(main + "/.git/worktrees/wt");
  fs::create_directories(main + "/.git/hooks");
  fs::create_directories(wt);
  std::ofstream(main + "/.git/config") << "[core]\n\tbare = false\n";
  std::ofstream(main + "/.git/HEAD") << "ref: refs/heads/main\n";
  std::ofstream(main + "/.git/worktrees/wt/commondir") << "../..\n";
  std::ofstream(main + "/.git/worktrees/wt/gitdir") << wt + "/.git\n";
  std::ofstream(main + "/.git/worktrees/wt/HEAD") << "ref: refs/heads/wt\n";
  std::ofstream(wt + "/.git") << "gitdir: " + main + "/.git/worktrees/wt\n";
  std::ofstream(wt + "/.env") << "SECRET=1\n";
  auto w = scan_workspace(wt, t + "/home", "");
  CHECK(w.git_dirs == std::vector<std::string>{main + "/.git/worktrees/wt", main + "/.git"});
  CHECK(has(w, wt + "/.git", false));
  CHECK(has(w, main + "/.git/config", false));
  CHECK(has(w, main + "/.git/hooks", true));
  CHECK(has(w, main + "/.git/worktrees/wt/commondir", false));
  CHECK(has(w, main + "/.git/worktrees/wt/gitdir", false));
  CHECK(has(w, wt + "/.env", false));
  // The main checkout's own scan grants no outside dir: its .git is inside it.
  CHECK(scan_workspace(main, t + "/home", "").git_dirs.empty());
  fs::remove_all(t);
}

TEST_CASE("seatbelt workspace: what the runners read flows from the shared scan into the profile", "[seatbelt]") {
  FakeFs f;
  f.file(P + "/.git/config", "");
  f.file(P + "/.git/HEAD", "ref: refs/heads/main\n");
  f.file(P + "/.git/hooks/pre-commit", "#!/bin/sh\nexec python -mpre_commit hook-impl --config=.pre-commit-config.yaml\n");
  f.file(P + "/.git/rebase-merge/git-rebase-todo", "pick 1 x\n");
  f.file(P + "/.pre-commit-config.yaml", "repos: []\n");
  ws::WorkspaceWalk walk;
  walk.git = {{ws::FoundGit::Dir, P + "/.git"}};
  auto w = protections_from(P, walk, ws::scan_repos(f, walk.git, {}, kHome), f);
  CHECK(has(w, P + "/.git/rebase-merge", true));
  CHECK(has(w, P + "/.pre-commit-config.yaml", false));
  CHECK_FALSE(has(w, P + "/.git/sequencer", true));  // missing: the audit's (no placeholder)
  auto h = mac_host();
  h.protect = w.protect;
  auto forms = forms_of(decide(h, claude_request()).ctx);
  CHECK_FALSE(sbpl::decide(forms, "file-write*", P + "/.git/rebase-merge/git-rebase-todo"));
  CHECK_FALSE(sbpl::decide(forms, "file-write*", P + "/.pre-commit-config.yaml"));
  CHECK(sbpl::decide(forms, "file-write*", P + "/.git/index"));  // control: commits work
}
