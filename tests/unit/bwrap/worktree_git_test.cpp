// The workspace as a linked worktree: which `.git` files the probe follows to a repository the
// planner then binds writable (probe/worktree_git.hpp), over real temp trees.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "sandbox/bwrap/probe/worktree_git.hpp"

using namespace blaude::sandbox::bwrap;
namespace fs = std::filesystem;

namespace {

struct Tree {
  fs::path root;
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "blaude-wtgit.XXXXXX").string();
    root = fs::canonical(::mkdtemp(tmpl.data()));
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string p(const std::string& rel) const { return (root / rel).string(); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(p(rel)).parent_path());
    std::ofstream(p(rel)) << text;
  }
  // A repository's git dir at `repo`, with a linked worktree `name` checked out at `wt`.
  void repo(const std::string& repo, const std::string& name, const std::string& wt) const {
    write(repo + "/HEAD", "ref: refs/heads/main\n");
    fs::create_directories(p(repo + "/objects"));
    fs::create_directories(p(repo + "/refs/heads"));
    write(repo + "/worktrees/" + name + "/HEAD", "ref: refs/heads/" + name + "\n");
    write(repo + "/worktrees/" + name + "/commondir", "../..\n");
    write(repo + "/worktrees/" + name + "/gitdir", p(wt) + "/.git\n");
    write(wt + "/.git", "gitdir: " + p(repo) + "/worktrees/" + name + "\n");
  }
  WorktreeGit probe(const std::string& wt) const { return probe_worktree_git(p(wt), ::getuid(), p("home"), p("home")); }
};

}  // namespace

TEST_CASE("worktree git: a linked worktree's repository is followed", "[worktree]") {
  Tree t;
  t.repo("src/main/.git", "feature", "src/feature");
  auto g = t.probe("src/feature");
  CHECK(g.refused == "");
  CHECK(g.common == t.p("src/main/.git"));
  CHECK(g.gitdir == t.p("src/main/.git/worktrees/feature"));
  CHECK(g.others.empty());
  t.repo("src/main/.git", "other", "src/other");
  fs::create_directory_symlink(t.p("src"), t.p("src/main/.git/worktrees/link"));  // no dir: not listed
  CHECK(t.probe("src/feature").others == std::vector<std::string>{t.p("src/main/.git/worktrees/other")});
  // git's relative pointers (worktree.useRelativePaths) lead to the same place
  t.write("src/feature/.git", "gitdir: ../main/.git/worktrees/feature\n");
  t.write("src/main/.git/worktrees/feature/gitdir", "../../../../feature/.git\n");
  CHECK(t.probe("src/feature").common == t.p("src/main/.git"));
}

TEST_CASE("worktree git: a main checkout, no .git, a .git symlink: nothing, no warning", "[worktree]") {
  Tree t;
  fs::create_directories(t.p("plain/.git"));
  fs::create_directories(t.p("none"));
  t.repo("src/main/.git", "feature", "src/feature");
  fs::create_directories(t.p("linked"));
  fs::create_symlink(t.p("src/main/.git"), t.p("linked/.git"));
  for (const char* ws : {"plain", "none", "linked"}) {
    auto g = t.probe(ws);
    CHECK(g.common == "");
    CHECK(g.refused == "");
  }
}

TEST_CASE("worktree git: hostile .git files are refused with a reason, never followed", "[worktree]") {
  Tree t;
  t.repo("src/main/.git", "feature", "src/feature");
  auto refused = [&](const std::string& ws, const std::string& why) {
    auto g = t.probe(ws);
    INFO(ws << ": " << g.refused);
    CHECK(g.common == "");
    CHECK(g.gitdir == "");
    CHECK(g.refused.find(why) != std::string::npos);
  };
  fs::create_directories(t.p("ws"));
  SECTION("gitdir: $HOME and /") {
    t.write("ws/.git", "gitdir: " + t.p("home") + "\n");
    refused("ws", "neither a linked worktree's gitdir");
    // home itself shaped as <home>/worktrees/x: the common dir is $HOME
    t.repo("home", "x", "ws");
    refused("ws", "home directory");
    t.write("ws/.git", "gitdir: /\n");
    refused("ws", "neither a linked worktree's gitdir");
    t.write("ws/.git", "gitdir: /worktrees/x\n");
    refused("ws", "it is /");
  }
  SECTION("a repository in a secrets dir, even with git's shape and a back-pointer") {
    t.repo("home/.ssh", "x", "ws");
    refused("ws", "would expose");
  }
  SECTION("another worktree's pointer, copied: its back-pointer names the other worktree") {
    t.write("ws/.git", "gitdir: " + t.p("src/main/.git/worktrees/feature") + "\n");
    refused("ws", "does not name");
  }
  SECTION("no back-pointer at all") {
    t.repo("src/main/.git", "x", "ws");
    fs::remove(t.p("src/main/.git/worktrees/x/gitdir"));
    refused("ws", "does not name");
  }
  SECTION("a gitdir reached through a symlink") {
    fs::create_directory_symlink(t.p("src/main"), t.p("src/link"));
    t.repo("src/main/.git", "x", "ws");
    t.write("ws/.git", "gitdir: " + t.p("src/link/.git/worktrees/x") + "\n");
    t.write("src/main/.git/worktrees/x/gitdir", t.p("ws") + "/.git\n");
    refused("ws", "through a symlink");
  }
  SECTION("a common dir that is no git dir") {
    t.repo("src/fake", "x", "ws");
    fs::remove_all(t.p("src/fake/objects"));
    refused("ws", "is not a git directory");
  }
  SECTION("commondir leading elsewhere") {
    t.repo("src/main/.git", "x", "ws");
    t.write("src/main/.git/worktrees/x/commondir", t.p("home") + "\n");
    refused("ws", "commondir does not lead");
  }
  SECTION("a repository containing the workspace, or inside it") {
    t.repo("src/main/.git", "x", "src/main/.git/inner");
    refused("src/main/.git/inner", "contains the workspace");
    t.repo("ws/sub/.git", "x", "ws");
    refused("ws", "lies in the workspace");
  }
  SECTION("not one gitdir line, or too large") {
    t.write("ws/.git", "gitdir: " + t.p("src/main/.git/worktrees/feature") + "\nsecond line\n");
    refused("ws", "one `gitdir: PATH` line");
    t.write("ws/.git", std::string(8192, 'x'));
    refused("ws", "larger than");
  }
  SECTION("a gitdir that is not the user's") {
    if (::getuid() != 0) return;  // chown needs root
    t.repo("src/main/.git", "x", "ws");
    REQUIRE(::chown(t.p("src/main/.git/worktrees/x").c_str(), 65534, 65534) == 0);
    refused("ws", "is not yours");
  }
}

TEST_CASE("worktree git: a submodule's gitdir in its superproject is followed by its core.worktree", "[worktree]") {
  Tree t;
  auto sub = [&](const std::string& gitdir, const std::string& wt_line) {
    t.write(gitdir + "/HEAD", "ref: refs/heads/main\n");
    fs::create_directories(t.p(gitdir + "/objects"));
    fs::create_directories(t.p(gitdir + "/refs/heads"));
    t.write(gitdir + "/config", "[core]\n\tbare = false\n\tworktree = " + wt_line + "\n");
  };
  sub("super/.git/modules/lib/a", "../../../../lib/a");
  t.write("super/lib/a/.git", "gitdir: ../../.git/modules/lib/a\n");
  auto g = t.probe("super/lib/a");
  CHECK(g.refused == "");
  CHECK(g.submodule);
  CHECK(g.common == t.p("super/.git/modules/lib/a"));
  CHECK(g.gitdir == g.common);
  CHECK(g.others.empty());
  // Its back-pointer names another dir: refused
  sub("super/.git/modules/lib/a", "../../../../elsewhere");
  g = t.probe("super/lib/a");
  CHECK(g.common == "");
  CHECK(g.refused.find("core.worktree does not name") != std::string::npos);
  // A config git cannot read whole: no back-pointer
  t.write("super/.git/modules/lib/a/config", "[core]\n\tworktree = ../../../../lib/a\n[bad\n");
  CHECK(t.probe("super/lib/a").common == "");
  // A commondir would send its writes elsewhere
  sub("super/.git/modules/lib/a", "../../../../lib/a");
  t.write("super/.git/modules/lib/a/commondir", "../../..\n");
  g = t.probe("super/lib/a");
  CHECK(g.common == "");
  CHECK(g.refused.find("has a commondir") != std::string::npos);
  // In a secrets dir: refused as a worktree's would be
  sub("home/.ssh/modules/x", t.p("ws"));
  t.write("ws/.git", "gitdir: " + t.p("home/.ssh/modules/x") + "\n");
  CHECK(t.probe("ws").refused.find("would expose") != std::string::npos);
}

TEST_CASE("worktree git: a workspace holding worktrees of repositories elsewhere", "[worktree]") {
  Tree t;
  t.repo("src/a/.git", "one", "ws/one");
  t.repo("src/a/.git", "two", "ws/two");
  t.repo("src/b/.git", "x", "ws/x");
  t.repo("ws/main/.git", "inner", "ws/inner");  // its repository in the workspace: nothing to bind
  t.write("ws/bad/.git", "gitdir: " + t.p("src/a/.git/worktrees/one") + "\n");  // one's pointer, copied
  fs::create_directories(t.p("ws/plain/.git"));
  auto gits = probe_workspace_gits(t.p("ws"), ::getuid(), t.p("home"), t.p("home"));
  std::vector<std::string> seen;
  for (const auto& g : gits) seen.push_back(g.worktree + "|" + g.common + "|" + (g.refused.empty() ? "" : "refused"));
  CHECK(seen == std::vector<std::string>{t.p("ws/bad") + "||refused", t.p("ws/one") + "|" + t.p("src/a/.git") + "|",
                                         t.p("ws/two") + "|" + t.p("src/a/.git") + "|",
                                         t.p("ws/x") + "|" + t.p("src/b/.git") + "|"});
  // The workspace's own `.git` file comes first
  t.repo("src/c/.git", "ws", "ws");
  gits = probe_workspace_gits(t.p("ws"), ::getuid(), t.p("home"), t.p("home"));
  REQUIRE(gits.size() == 5);
  CHECK(gits[0].worktree == t.p("ws"));
  CHECK(gits[0].common == t.p("src/c/.git"));
}

// The planner's half (plan/plan_worktree.cpp), over a synthetic host.
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/plan.hpp"

TEST_CASE("worktree git: the repository is bound writable at its host path, its guards in it", "[worktree]") {
  using namespace blaude::testing;
  using namespace blaude::sandbox;
  auto f = typical_host();
  f.cwd = "/home/u/feature";
  const std::string c = "/home/u/main/.git";
  // What the scan reports for it (repo_scan follows the `.git` file to the common dir).
  f.ws.git.protect.push_back({c + "/config", Guard::ReadOnly, "config of " + c});
  f.ws.git.protect.push_back({c + "/hooks", Guard::ReadOnly, "hooks of " + c});
  f.ws.git.protect.push_back({c + "/worktrees/other/gitdir", Guard::ReadOnly, "worktree pointer"});
  auto without = plan(blaude::sandbox::SandboxRequest{}, f);
  CHECK_FALSE(has(without.argv, {"--bind", c, c}));
  CHECK_FALSE(has(without.argv, {"--ro-bind", c + "/config", c + "/config"}));  // the control: no alias, no guard
  auto wt = [](std::string dir, std::string gitdir, std::string common) {
    WorktreeGit g;
    g.worktree = std::move(dir);
    g.gitdir = std::move(gitdir);
    g.common = std::move(common);
    return g;
  };
  f.ws_gits = {wt(f.cwd, c + "/worktrees/feature", c)};
  auto p = plan(blaude::sandbox::SandboxRequest{}, f);
  CHECK(has(p.argv, {"--bind", c, c}));
  CHECK(has(p.argv, {"--ro-bind", c + "/config", c + "/config"}));
  CHECK(has(p.argv, {"--ro-bind", c + "/hooks", c + "/hooks"}));
  CHECK(has(p.argv, {"--ro-bind", c + "/worktrees/other/gitdir", c + "/worktrees/other/gitdir"}));
  CHECK(std::find(p.writable_dirs.begin(), p.writable_dirs.end(), c) != p.writable_dirs.end());
  // Another worktree's git dir: read-only (its own files inside it are covered by it)
  f.ws_gits[0].others = {c + "/worktrees/other"};
  auto o = plan(blaude::sandbox::SandboxRequest{}, f);
  CHECK(has(o.argv, {"--ro-bind", c + "/worktrees/other", c + "/worktrees/other"}));
  CHECK_FALSE(has(p.argv, {"--ro-bind", c + "/worktrees/other", c + "/worktrees/other"}));
  CHECK_FALSE(has(o.argv, {"--ro-bind", c + "/worktrees/feature", c + "/worktrees/feature"}));
  f.ws_gits[0].others.clear();
  // Nothing of the main checkout's tree
  CHECK_FALSE(has(p.argv, {"--bind", "/home/u/main", "/home/u/main"}));
  // A refusal: the warning, no bind
  f.ws_gits = {wt("", "", "")};
  f.ws_gits[0].refused = "/home/u/feature/.git is not followed (test)";
  auto r = plan(blaude::sandbox::SandboxRequest{}, f);
  CHECK_FALSE(has(r.argv, {"--bind", c, c}));
  CHECK(std::find(r.warnings.begin(), r.warnings.end(), f.ws_gits[0].refused) != r.warnings.end());
}

TEST_CASE("worktree git: several worktrees of one repository: one bind, their git dirs not read-only", "[worktree]") {
  using namespace blaude::testing;
  using namespace blaude::sandbox;
  auto f = typical_host();
  f.cwd = "/home/u/work";
  const std::string c = "/home/u/main/.git", s = "/home/u/super/.git/modules/lib";
  auto wt = [](std::string dir, std::string gitdir, std::string common, std::vector<std::string> others) {
    WorktreeGit g;
    g.worktree = std::move(dir);
    g.gitdir = std::move(gitdir);
    g.common = std::move(common);
    g.others = std::move(others);
    return g;
  };
  f.ws_gits = {wt(f.cwd + "/one", c + "/worktrees/one", c, {c + "/worktrees/other", c + "/worktrees/two"}),
               wt(f.cwd + "/two", c + "/worktrees/two", c, {c + "/worktrees/one", c + "/worktrees/other"}),
               wt(f.cwd + "/lib", s, s, {})};
  f.ws_gits[2].submodule = true;
  auto p = plan(blaude::sandbox::SandboxRequest{}, f);
  CHECK(std::count(p.argv.begin(), p.argv.end(), c) == 2);  // one --bind c c
  CHECK(has(p.argv, {"--bind", c, c}));
  CHECK(has(p.argv, {"--bind", s, s}));
  CHECK(has(p.argv, {"--ro-bind", c + "/worktrees/other", c + "/worktrees/other"}));
  CHECK_FALSE(has(p.argv, {"--ro-bind", c + "/worktrees/one", c + "/worktrees/one"}));
  CHECK_FALSE(has(p.argv, {"--ro-bind", c + "/worktrees/two", c + "/worktrees/two"}));
  CHECK(std::find(p.writable_dirs.begin(), p.writable_dirs.end(), s) != p.writable_dirs.end());
  auto note = [&](const std::string& n) { return std::find(p.notes.begin(), p.notes.end(), n) != p.notes.end(); };
  CHECK(std::any_of(p.notes.begin(), p.notes.end(), [&](const std::string& n) { return n.find(f.cwd + "/lib is a submodule") == 0; }));
  CHECK_FALSE(note(""));
}
