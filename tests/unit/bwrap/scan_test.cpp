// The host side of the sandbox over real temp trees: the workspace walk, git dirs, the
// bwrap feature cache, and the lexical path helpers.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "app/launch.hpp"
#include "sandbox/bwrap/probe/features.hpp"
#include "sandbox/bwrap/probe/scan.hpp"
#include "sandbox/bwrap/probe/workspace.hpp"
#include "common/paths.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path root, path;
  explicit TempDir(const std::string& leaf = "") {
    std::string tmpl = (fs::temp_directory_path() / "blaude-scan.XXXXXX").string();
    root = path = fs::canonical(::mkdtemp(tmpl.data()));
    if (!leaf.empty()) {
      path /= leaf;
      fs::create_directories(path);
    }
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void file(const std::string& rel, const std::string& text = "x") {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << text;
  }
  void dir(const std::string& rel) { fs::create_directories(path / rel); }
  void link(const std::string& rel, const std::string& target) {
    fs::create_directories((path / rel).parent_path());
    fs::create_symlink(target, path / rel);
  }
};

bool hit(const WorkspaceScan& s, const std::string& rel) {
  return std::any_of(s.hits.begin(), s.hits.end(), [&](const auto& h) { return h.first == rel; });
}
// The repository scan's guard on `rel` (relative to the scanned root), if any.
const HostProtection* guarded(const WorkspaceScan& s, const fs::path& root, const std::string& rel) {
  for (const auto& p : s.git.protect)
    if (p.path == (root / rel).string()) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("workspace walk: names to depth 3 (Claude Code's at any), repositories at any depth, git internals, links", "[sandbox][scan]") {
  // The root is named "build": it is still scanned (the bash version skipped it entirely).
  TempDir t("build");
  t.file(".bashrc");
  t.file("a/b/.zshrc");
  t.file("a/b/c/.profile");                 // depth 4: beyond the protected-name scan
  t.file("node_modules/pkg/.bashrc");       // nothing is pruned: vendored code counts
  t.dir("node_modules/pkg/node_modules/dep/lib/.git/hooks");  // a repository at depth 6
  t.file("node_modules/pkg/node_modules/dep/lib/.git/config");
  t.file("src/vendor/x/.mcp.json");         // depth 4: Claude Code's names are at any depth
  t.dir("a/b/c/d/e/f/.claude/commands");    // depth 7, in a dir with subdirs
  t.file("a/b/c/d/e/g/.mcp.json");          // depth 7, in a leaf dir (the walk's quick path)
  t.link("a/b/c/d/e/h/.claude", "/tmp");    // a link, in a leaf dir
  t.dir(".git/hooks");
  t.file(".git/config", "[core]\n\thooksPath = .husky\n");
  t.dir(".git/objects/ab/.vscode");         // git internals are never walked
  t.dir(".git/modules/libs/one/hooks");
  t.file(".git/modules/libs/one/config");
  t.dir(".husky");
  t.dir("packages/app/.git/hooks");
  t.file("packages/app/.git/config");
  t.link("out", "/etc/passwd");
  t.link("a/b/c/far", "/root/secret");      // depth 4 link: reported
  t.link("a/b/c/d/deeper", "/root/x");      // depth 5: not
  t.link(".vscode", "/home");

  auto s = scan_workspace(t.path.string(), "/nonexistent", "");
  CHECK(hit(s, ".bashrc"));
  CHECK(hit(s, "a/b/.zshrc"));
  CHECK_FALSE(hit(s, "a/b/c/.profile"));
  CHECK(hit(s, "node_modules/pkg/.bashrc"));
  CHECK(hit(s, "src/vendor/x/.mcp.json"));
  CHECK(hit(s, "a/b/c/d/e/f/.claude"));
  CHECK(hit(s, "a/b/c/d/e/g/.mcp.json"));
  CHECK(hit(s, "a/b/c/d/e/h/.claude"));
  CHECK_FALSE(hit(s, ".git/objects/ab/.vscode"));
  REQUIRE(hit(s, ".vscode"));
  auto vs = std::find_if(s.hits.begin(), s.hits.end(), [](const auto& h) { return h.first == ".vscode"; });
  CHECK(vs->second.lkind == Kind::Symlink);

  for (const char* rel : {".git/config", ".git/hooks", ".husky", ".git/modules/libs/one/config",
                          ".git/modules/libs/one/hooks", "packages/app/.git/config",
                          "node_modules/pkg/node_modules/dep/lib/.git/hooks"}) {
    INFO(rel);
    CHECK(guarded(s, t.path, rel));
  }
  CHECK_FALSE(guarded(s, t.path, ".git/objects"));
  // Every guarded path, and every dir above it, has the identity the protect step checks.
  for (const auto& p : s.git.protect) {
    INFO(p.path);
    CHECK(s.ids.count(p.path));
    CHECK(s.ids.count(t.path.string()));
  }

  auto link = [&](const std::string& rel) {
    auto it = std::find_if(s.links.begin(), s.links.end(), [&](const auto& l) { return l.rel == rel; });
    return it == s.links.end() ? std::string("(none)") : it->target;
  };
  CHECK(link("out") == "/etc/passwd");
  CHECK(link("a/b/c/far") == "/root/secret");
  CHECK(link("a/b/c/d/deeper") == "(none)");
}

TEST_CASE("worktree and submodule .git files", "[sandbox][scan]") {
  TempDir t("proj");
  t.dir(".git/modules/sub/hooks");
  t.file(".git/modules/sub/config");
  t.file(".git/config");
  t.dir(".git/hooks");
  t.file("sub/.git", "gitdir: ../.git/modules/sub\n");
  t.file("wt/.git", "gitdir: /somewhere/else/.git/worktrees/wt\n");
  auto s = scan_workspace(t.path.string(), "/nonexistent", "");
  CHECK(guarded(s, t.path, ".git/modules/sub/config"));
  CHECK(guarded(s, t.path, "sub/.git"));  // the pointer: rewriting it would re-point git
  CHECK(guarded(s, t.path, "wt/.git"));
  CHECK(s.git.repos.size() == 2);  // .git and its submodule, once; the outside worktree not at all
}

TEST_CASE("a missing core.hooksPath is kept empty at its top-level dir", "[sandbox][scan]") {
  TempDir t("proj");
  t.dir(".git/hooks");
  t.file(".git/config", "[core]\n\thooksPath = \"tools/git/hooks\"\n");
  auto s = scan_workspace(t.path.string(), "/nonexistent", "");
  auto g = guarded(s, t.path, "tools");
  REQUIRE(g);
  CHECK(g->guard == Guard::EmptyDir);
}

TEST_CASE("the walk is bounded and says so", "[sandbox][scan]") {
  TempDir t("proj");
  for (int i = 0; i < 50; ++i) t.dir("d" + std::to_string(i) + "/x");
  WalkLimits lim;
  lim.max_entries = 10;
  auto w = walk_workspace(t.path.string(), lim);
  CHECK(w.truncated);
  CHECK_FALSE(w.truncated_at.empty());
  CHECK_FALSE(walk_workspace(t.path.string()).truncated);
}

TEST_CASE("probe_path never follows a link for lkind", "[sandbox][scan]") {
  TempDir t;
  t.file("f");
  t.link("l", "f");
  t.link("dangling", "nope");
  auto f = probe_path((t.path / "f").string());
  CHECK(f.lkind == Kind::File);
  auto l = probe_path((t.path / "l").string());
  CHECK(l.lkind == Kind::Symlink);
  CHECK(l.kind == Kind::File);
  CHECK(l.link == "f");
  CHECK(l.real == (t.path / "f").string());
  auto d = probe_path((t.path / "dangling").string());
  CHECK(d.lkind == Kind::Symlink);
  CHECK(d.kind == Kind::Missing);
  CHECK(d.real.empty());
  CHECK(probe_path((t.path / "none").string()).lkind == Kind::Missing);
}

TEST_CASE("bwrap feature cache: keyed by the binary, atomic, private", "[sandbox][scan]") {
  TempDir t;
  std::string home = (t.path / "home").string(), bin = (t.path / "fake-bwrap").string();
  fs::create_directories(home);
  // A stand-in that accepts every option: it "supports" overlays.
  std::ofstream(bin) << "#!/bin/sh\nexit 0\n";
  fs::permissions(bin, fs::perms::owner_all);
  uid_t uid = ::getuid();
  // The probe only reads: a stale (here: missing) cache comes back as preparations.
  auto r = bwrap_features(bin, home, uid);
  CHECK(r.overlay);
  CHECK_FALSE(fs::exists(home + "/.cache/blaude"));
  REQUIRE_FALSE(r.cache_writes.empty());
  auto apply_all = [](const BwrapFeatures& b) {
    for (const auto& p : b.cache_writes) CHECK(blaude::app::apply(p).empty());
  };
  apply_all(r);
  std::string cache = home + "/.cache/blaude/bwrap-features-" + std::to_string(uid);
  REQUIRE(fs::exists(cache));
  struct stat st;
  REQUIRE(::stat((home + "/.cache/blaude").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat(cache.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(bwrap_features(bin, home, uid).cache_writes.empty());  // fresh: nothing to write
  // Now it rejects --overlay-src: the cache still answers until the binary changes.
  std::ofstream(bin) << "#!/bin/sh\n[ \"$1\" = --version ] && exit 0\nexit 1\n";
  CHECK(bwrap_identity(bin) != std::string());
  auto again = bwrap_features(bin, home, uid);
  CHECK_FALSE(again.overlay);  // size changed → identity changed → re-probed
  CHECK_FALSE(again.probe_failed);
  apply_all(again);
  // A bwrap that cannot answer at all: not cached, flagged.
  std::ofstream(bin) << "#!/bin/sh\nexit 3\n";
  auto broken = bwrap_features(bin, home, uid);
  CHECK(broken.probe_failed);
  CHECK(broken.cache_writes.empty());
  std::ifstream in(cache);
  std::string first;
  std::getline(in, first);
  CHECK(first != bwrap_identity(bin));
  // The real one on this host, if installed.
  if (::access("/usr/bin/bwrap", X_OK) == 0) CHECK_FALSE(bwrap_features("/usr/bin/bwrap", home, uid).probe_failed);
}

// The re-ask of a cached "no overlays" reads bwrap's binary for the option's name in 16 KiB
// chunks (features.cpp): a name across a chunk boundary is found at every split.
TEST_CASE("file_mentions finds the bytes across chunk boundaries", "[sandbox][scan]") {
  TempDir t;
  const std::string what = "--overlay-src";
  const std::string f = t.path.string() + "/bin";
  for (size_t at : {size_t(0), size_t(100), size_t(16 * 1024 - 13), size_t(16 * 1024 - 7), size_t(16 * 1024 - 1),
                    size_t(16 * 1024), size_t(32 * 1024 - 10), size_t(40000)}) {
    std::string body(50000, 'x');
    body.replace(at, what.size(), what);
    std::ofstream(f, std::ios::binary | std::ios::trunc) << body;
    INFO("at " << at);
    CHECK(file_mentions(f, what));
    // Control: one byte changed and it is not there.
    body[at + 5] = 'X';
    std::ofstream(f, std::ios::binary | std::ios::trunc) << body;
    CHECK_FALSE(file_mentions(f, what));
  }
  // Cannot tell: the caller asks bwrap.
  CHECK(file_mentions(t.path.string() + "/missing", what));
  CHECK(file_mentions(t.path.string(), what));  // not a regular file
}

TEST_CASE("lexical path helpers", "[sandbox]") {
  CHECK(normalize("/a//b/./c/../d/") == "/a/b/d");
  CHECK(normalize("/../x") == "/x");
  CHECK(normalize("a/../../b") == "../b");
  CHECK(join("/etc", "../run/x") == "/run/x");
  CHECK(join("/etc", "/abs") == "/abs");
  CHECK(dirname_of("/a/b") == "/a");
  CHECK(dirname_of("/a") == "/");
  CHECK(basename_of("/a/b/") == "b");
  CHECK(is_under("/a/b", "/a"));
  CHECK(is_under("/a", "/a"));
  CHECK_FALSE(is_under("/ab", "/a"));
  CHECK(is_under("/x", "/"));
  CHECK(relative_to("/a/b/c", "/a") == "b/c");
  CHECK(relative_to("/a/b", "/") == "a/b");
}

TEST_CASE("policy files and .env* files are protected, a venv dir named .env is not", "[sandbox][scan]") {
  TempDir t("ws");
  t.file(".blaude", "allow-read ~/.cache\n");
  t.file("sub/.xclaude", "tool node\n");
  t.file(".env", "SECRET=1\n");
  t.file("app/.env.local", "X=1\n");
  t.file(".envrc", "use nix\n");  // direnv runs this on the host
  t.dir("py/.env/bin");           // a virtualenv: a directory, walked, not protected itself
  t.file(".environment-notes.md");  // starts with .env: protected too (prefix, as on macOS)
  t.file("README.env");             // control: does not start with .env
  t.file(".env.example", "X=\n");   // a template: the agent may edit it
  auto s = scan_workspace(t.path.string(), "/nonexistent", "");
  CHECK(hit(s, ".blaude"));
  CHECK(hit(s, "sub/.xclaude"));
  CHECK(hit(s, ".env"));
  CHECK(hit(s, "app/.env.local"));
  CHECK(hit(s, ".envrc"));
  CHECK(hit(s, ".environment-notes.md"));
  CHECK_FALSE(hit(s, "py/.env"));
  CHECK_FALSE(hit(s, "README.env"));
  CHECK_FALSE(hit(s, ".env.example"));
}
