// The set of files git reads code-bearing configuration from, per gitrepository-layout and
// git-config, computed over a fake host.
#include <sys/stat.h>

#include <map>
#include <set>

#include "catch.hpp"
#include "sandbox/workspace/repo_scan.hpp"

using namespace blaude::sandbox::workspace;

namespace {

std::string norm(const std::string& p) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string c = p.substr(i, j - i);
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!c.empty() && c != ".") {
      parts.push_back(c);
    }
    i = j + 1;
  }
  std::string out;
  for (auto& c : parts) out += "/" + c;
  return out.empty() ? "/" : out;
}

// Paths → content (file), "/" suffix-free dirs, or "->target" symlinks.
struct FakeFs : GitFs {
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> links;
  std::set<std::string> dirs;
  unsigned long long next = 1;
  std::map<std::string, unsigned long long> inos;

  FakeFs& dir(const std::string& p) {
    for (std::string a = p; a.size() > 1; a = a.substr(0, a.rfind('/'))) dirs.insert(a);
    return *this;
  }
  FakeFs& file(const std::string& p, const std::string& c = "") {
    dir(p.substr(0, p.rfind('/')));
    files[p] = c;
    return *this;
  }
  FakeFs& link(const std::string& p, const std::string& t) {
    dir(p.substr(0, p.rfind('/')));
    links[p] = t;
    return *this;
  }
  unsigned long long ino(const std::string& p) {
    auto [it, fresh] = inos.emplace(p, next);
    if (fresh) ++next;
    return it->second;
  }
  Identity lstat(const std::string& p) override {
    if (files.count(p)) return {1, ino(p), S_IFREG};
    if (links.count(p)) return {1, ino(p), S_IFLNK};
    if (dirs.count(p)) return {1, ino(p), S_IFDIR};
    return {};
  }
  std::optional<std::string> read(const std::string& p) override {
    auto it = files.find(p);
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  std::string realpath(const std::string& p) override {
    std::string cur = norm(p);
    for (int i = 0; i < 8; ++i) {
      auto it = links.find(cur);
      if (it == links.end()) break;
      cur = norm(it->second[0] == '/' ? it->second : cur.substr(0, cur.rfind('/')) + "/" + it->second);
    }
    return lstat(cur).type ? cur : "";
  }
  std::vector<std::string> list(const std::string& d) override {
    std::set<std::string> out;
    auto add = [&](const std::string& p) {
      if (p.size() > d.size() + 1 && p.compare(0, d.size() + 1, d + "/") == 0) {
        std::string rest = p.substr(d.size() + 1);
        out.insert(rest.substr(0, rest.find('/')));
      }
    };
    for (auto& [p, c] : files) add(p);
    for (auto& [p, c] : links) add(p);
    for (auto& p : dirs) add(p);
    return {out.begin(), out.end()};
  }
};

std::map<std::string, Guard> protections(FakeFs& fs, const std::vector<FoundGit>& found, GlobalGitConfig global = {}) {
  std::map<std::string, Guard> out;
  for (const auto& p : scan_repos(fs, found, global, "/home/u").protect) out[p.path] = p.guard;
  return out;
}

}  // namespace

TEST_CASE("repo scan: a plain repository protects its config and hooks, and nothing git writes to commit") {
  FakeFs fs;
  fs.file("/w/.git/config", "[core]\n").dir("/w/.git/hooks").file("/w/.git/HEAD").dir("/w/.git/objects").dir("/w/.git/refs");
  fs.file("/w/.git/index").dir("/w/.git/info").file("/w/.git/info/attributes");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p == std::map<std::string, Guard>{{"/w/.git/config", Guard::ReadOnly}, {"/w/.git/hooks", Guard::ReadOnly}});
}

TEST_CASE("repo scan: a missing hooks dir is kept empty, not the whole gitdir") {
  FakeFs fs;
  fs.file("/w/.git/config");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p["/w/.git/hooks"] == Guard::EmptyDir);
  CHECK_FALSE(p.count("/w/.git"));
}

TEST_CASE("repo scan: commondir redirects config and hooks; the pointer itself is protected") {
  FakeFs fs;
  fs.file("/w/.git/config").dir("/w/.git/hooks").file("/w/.git/commondir", "../shared\n");
  fs.file("/w/shared/config").dir("/w/shared/hooks");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p.count("/w/.git/commondir"));
  CHECK(p.count("/w/shared/config"));
  CHECK(p.count("/w/shared/hooks"));
}

TEST_CASE("repo scan: linked worktrees' pointers and config.worktree, and the .git file of a checkout") {
  FakeFs fs;
  fs.file("/w/.git/config", "[extensions]\n\tworktreeConfig = true\n").dir("/w/.git/hooks");
  fs.file("/w/.git/config.worktree", "[core]\n\thooksPath = tools/hooks\n");
  fs.file("/w/.git/worktrees/wt1/commondir", "../..\n").file("/w/.git/worktrees/wt1/gitdir", "/w/wt1/.git\n");
  fs.file("/w/.git/worktrees/wt1/config.worktree").dir("/w/tools/hooks");
  fs.file("/w/wt1/.git", "gitdir: /w/.git/worktrees/wt1\n");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}, {FoundGit::File, "/w/wt1/.git"}});
  for (const char* want : {"/w/.git/config.worktree", "/w/.git/worktrees/wt1/commondir", "/w/.git/worktrees/wt1/gitdir",
                           "/w/.git/worktrees/wt1/config.worktree", "/w/wt1/.git", "/w/tools"})
    CHECK(p.count(want));
}

TEST_CASE("repo scan: husky v9 (.husky/_ stubs run .husky/<hook>) protects all of .husky") {
  FakeFs fs;
  fs.file("/w/.git/config", "[core]\n\thooksPath = .husky/_\n").dir("/w/.git/hooks");
  fs.file("/w/.husky/_/pre-commit", ". \"$(dirname \"$0\")/h\"\n").file("/w/.husky/pre-commit", "npm test\n");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p["/w/.husky"] == Guard::ReadOnly);
}

TEST_CASE("repo scan: a global core.hooksPath applies to every repository, relative to each worktree") {
  FakeFs fs;
  fs.file("/w/.git/config").file("/w/pkg/.git/config").dir("/w/pkg/.githooks");
  GlobalGitConfig g;
  g.hooks_paths = {".githooks"};
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}, {FoundGit::Dir, "/w/pkg/.git"}}, g);
  CHECK(p["/w/.githooks"] == Guard::EmptyDir);
  CHECK(p["/w/pkg/.githooks"] == Guard::ReadOnly);
}

TEST_CASE("repo scan: include.path and includeIf targets, relative to the including file, recursively") {
  FakeFs fs;
  fs.file("/w/.git/config", "[include]\n\tpath = ../conf/a.inc\n[includeIf \"onbranch:main\"]\n\tpath = /w/conf/b.inc\n");
  fs.file("/w/conf/a.inc", "[include]\n\tpath = c.inc\n").file("/w/conf/b.inc").file("/w/conf/c.inc", "[core]\nhooksPath=/w/h\n");
  fs.dir("/w/h");
  auto s = scan_repos(fs, {{FoundGit::Dir, "/w/.git"}}, {}, "/home/u");
  std::set<std::string> got;
  for (auto& p : s.protect) got.insert(p.path);
  for (const char* want : {"/w/conf/a.inc", "/w/conf/b.inc", "/w/conf/c.inc", "/w/h"}) CHECK(got.count(want));
}

TEST_CASE("repo scan: a missing include target is reported, since git skips it silently") {
  FakeFs fs;
  fs.file("/w/.git/config", "[include]\n\tpath = later.inc\n");
  auto s = scan_repos(fs, {{FoundGit::Dir, "/w/.git"}}, {}, "/home/u");
  bool said = false;
  for (auto& w : s.warnings) said |= w.find("/w/.git/later.inc") != std::string::npos;
  CHECK(said);
}

TEST_CASE("repo scan: submodule gitdirs under modules/, nested, and their checkouts' .git files") {
  FakeFs fs;
  fs.file("/w/.git/config").dir("/w/.git/hooks");
  fs.file("/w/.git/modules/lib/config").dir("/w/.git/modules/lib/hooks");
  fs.file("/w/.git/modules/a/b/config");  // submodule named "a/b"
  fs.file("/w/.git/modules/lib/modules/inner/config");
  fs.file("/w/lib/.git", "gitdir: ../.git/modules/lib\n");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}, {FoundGit::File, "/w/lib/.git"}});
  for (const char* want : {"/w/.git/modules/lib/config", "/w/.git/modules/lib/hooks", "/w/.git/modules/a/b/config",
                           "/w/.git/modules/a/b/hooks", "/w/.git/modules/lib/modules/inner/config", "/w/lib/.git"})
    CHECK(p.count(want));
}

TEST_CASE("repo scan: a .git symlink's repository is protected and the link is reported as replaceable") {
  FakeFs fs;
  fs.file("/w/real.git/config").dir("/w/real.git/hooks").link("/w/app/.git", "../real.git");
  auto s = scan_repos(fs, {{FoundGit::Symlink, "/w/app/.git"}}, {}, "/home/u");
  std::set<std::string> got;
  for (auto& p : s.protect) got.insert(p.path);
  CHECK(got.count("/w/real.git/config"));
  CHECK(got.count("/w/real.git/hooks"));
  REQUIRE_FALSE(s.warnings.empty());
  CHECK(s.warnings[0].find("/w/app/.git is a symlink") != std::string::npos);
}

TEST_CASE("repo scan: a config that is a symlink protects what git reads through it") {
  FakeFs fs;
  fs.file("/w/dotfiles/gitconfig").link("/w/.git/config", "../dotfiles/gitconfig").dir("/w/.git/hooks");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p.count("/w/dotfiles/gitconfig"));
}

TEST_CASE("repo scan: a bare repository in the workspace (a push target runs its hooks)") {
  FakeFs fs;
  fs.file("/w/remote.git/config").dir("/w/remote.git/hooks").file("/w/remote.git/HEAD");
  auto p = protections(fs, {{FoundGit::Bare, "/w/remote.git"}});
  CHECK(p.count("/w/remote.git/config"));
  CHECK(p.count("/w/remote.git/hooks"));
}

TEST_CASE("repo scan: a commondir loop or a self-including config terminates") {
  FakeFs fs;
  fs.file("/w/.git/config", "[include]\npath = config\n").file("/w/.git/commondir", ".\n");
  auto s = scan_repos(fs, {{FoundGit::Dir, "/w/.git"}}, {}, "/home/u");
  CHECK(s.repos.size() == 1);
}

// What the runners read (common/git_runners.hpp).
TEST_CASE("repo scan: git's operation state present at the start is read-only; a missing one gets no placeholder") {
  FakeFs fs;
  fs.file("/w/.git/config").dir("/w/.git/hooks").file("/w/.git/rebase-merge/git-rebase-todo", "pick 1234 x\n");
  fs.file("/w/.git/rebase-merge/done").file("/w/.git/sequencer/todo", "pick 1 y\n");
  fs.file("/w/.git/worktrees/wt1/commondir", "../..\n").file("/w/.git/worktrees/wt1/gitdir", "/w/wt1/.git\n");
  fs.file("/w/.git/worktrees/wt1/rebase-apply/0001", "patch\n");
  fs.file("/w/.git/modules/sub/config").file("/w/.git/modules/sub/HEAD").file("/w/.git/modules/sub/rebase-merge/git-rebase-todo");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p["/w/.git/rebase-merge"] == Guard::ReadOnly);
  CHECK(p["/w/.git/sequencer"] == Guard::ReadOnly);
  CHECK(p["/w/.git/worktrees/wt1/rebase-apply"] == Guard::ReadOnly);
  CHECK(p["/w/.git/modules/sub/rebase-merge"] == Guard::ReadOnly);
  // Missing: nothing mounted (an empty rebase-merge/ would be a rebase in progress to git).
  CHECK_FALSE(p.count("/w/.git/rebase-apply"));
  CHECK_FALSE(p.count("/w/.git/worktrees/wt1/rebase-merge"));
  CHECK_FALSE(p.count("/w/.git/worktrees/wt1/sequencer"));
  CHECK_FALSE(p.count("/w/.git/modules/sub/sequencer"));
}

TEST_CASE("repo scan: a state dir that is a symlink protects its target and is reported") {
  FakeFs fs;
  fs.file("/w/.git/config").dir("/w/.git/hooks").file("/w/elsewhere/git-rebase-todo");
  fs.link("/w/.git/rebase-merge", "/w/elsewhere");
  auto s = scan_repos(fs, {{FoundGit::Dir, "/w/.git"}}, {}, "/home/u");
  bool target = false, warned = false;
  for (const auto& p : s.protect) target |= p.path == "/w/elsewhere" && p.guard == Guard::ReadOnly;
  for (const auto& w : s.warnings) warned |= w.find("/w/.git/rebase-merge is a symlink") == 0;
  CHECK(target);
  CHECK(warned);
}

TEST_CASE("repo scan: the hook managers the hooks run have their config protected when present") {
  FakeFs fs;
  fs.file("/w/.git/config").file("/w/.git/hooks/pre-commit",
                                 "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n"
                                 "exec python -mpre_commit hook-impl --config=.pre-commit-config.yaml\n");
  fs.file("/w/.git/hooks/pre-push.sample", "lefthook overcommit husky\n");  // git's inert template
  fs.file("/w/.pre-commit-config.yaml", "repos: []\n").file("/w/lefthook.yml");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  CHECK(p["/w/.pre-commit-config.yaml"] == Guard::ReadOnly);
  CHECK_FALSE(p.count("/w/.pre-commit-config.yml"));  // missing: the audit's
  CHECK_FALSE(p.count("/w/lefthook.yml"));            // no hook runs lefthook
}

TEST_CASE("repo scan: lefthook, overcommit and simple-git-hooks configs, files and dirs") {
  FakeFs fs;
  fs.file("/w/.git/config").file("/w/.git/hooks/pre-commit", "#!/bin/sh\ncall_lefthook run \"pre-commit\" \"$@\"\n");
  fs.file("/w/.git/hooks/post-checkout", "#!/usr/bin/env ruby\n# Entrypoint for Overcommit hook integration\n");
  fs.file("/w/.git/hooks/commit-msg", "#!/bin/sh\nif [ \"$SKIP_SIMPLE_GIT_HOOKS\" = \"1\" ]; then exit 0; fi\nnpx x\n");
  fs.file("/w/lefthook.yml").file("/w/lefthook-local.yml").file("/w/.lefthook/pre-commit/a.sh").file("/w/.config/lefthook.toml");
  fs.file("/w/.overcommit.yml").file("/w/.git-hooks/pre_commit/x.rb").file("/w/.simple-git-hooks.json").file("/w/package.json");
  fs.link("/w/.lefthook.yml", "/w/shared/lh.yml").file("/w/shared/lh.yml");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}});
  for (const char* want : {"/w/lefthook.yml", "/w/lefthook-local.yml", "/w/.lefthook", "/w/.config/lefthook.toml",
                           "/w/.overcommit.yml", "/w/.git-hooks", "/w/.simple-git-hooks.json", "/w/shared/lh.yml"})
    CHECK(p[want] == Guard::ReadOnly);
  CHECK_FALSE(p.count("/w/package.json"));  // too broad to freeze: docs/policy.md
  CHECK_FALSE(p.count("/w/.lefthook-local"));
}

TEST_CASE("repo scan: a manager named by a hooksPath's hooks or the tree of husky's user hooks, per worktree") {
  FakeFs fs;
  // husky v9: .husky/_/pre-commit runs .husky/_/h, which runs .husky/pre-commit (no shebang),
  // which runs lefthook: lefthook's config is protected too.
  fs.file("/w/.git/config", "[core]\n\thooksPath = .husky/_\n").dir("/w/.git/hooks");
  fs.file("/w/.husky/_/pre-commit", ". \"$(dirname \"$0\")/h\"\n").file("/w/.husky/_/h", "sh -e \"$s\" # husky\n");
  fs.file("/w/.husky/pre-commit", "npx lefthook run pre-commit\n").file("/w/.lefthook.yml");
  fs.file("/w/.git/worktrees/wt1/commondir", "../..\n").file("/w/.git/worktrees/wt1/gitdir", "/w/wt1/.git\n");
  fs.file("/w/wt1/.git", "gitdir: /w/.git/worktrees/wt1\n").file("/w/wt1/.husky/pre-commit", "lefthook run\n");
  fs.file("/w/wt1/.lefthook.yml");
  auto p = protections(fs, {{FoundGit::Dir, "/w/.git"}, {FoundGit::File, "/w/wt1/.git"}});
  for (const char* want : {"/w/.husky", "/w/.lefthook.yml", "/w/wt1/.husky", "/w/wt1/.lefthook.yml"})
    CHECK(p[want] == Guard::ReadOnly);
}
