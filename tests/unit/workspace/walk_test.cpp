// The workspace walk's mechanics on real directories: the threaded walk gives exactly
// the one-thread walk's result and order, and a dir without subdirs below the reported depths is
// not listed (the kernel's link count says it can hold no repository but a `.git` file or link),
// with what it can hold still found.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "common/dir_list.hpp"
#include "common/platform.hpp"
#if BLAUDE_LINUX_CALLS
#include <sys/vfs.h>
#endif
#include "common/unique_fd.hpp"
#include "sandbox/workspace/workspace_walk.hpp"
#include "temp_dir.hpp"

using namespace blaude;
using namespace blaude::sandbox::workspace;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const std::string& p, const std::string& text = "x") {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

void gitdir(const std::string& g) {
  fs::create_directories(g + "/objects");
  fs::create_directories(g + "/refs/heads");
  fs::create_directories(g + "/hooks");
  write(g + "/HEAD", "ref: refs/heads/main\n");
  write(g + "/config", "[core]\n");
}

// Every shape the walk reports, spread over enough dirs that the threads start.
void build(const std::string& w) {
  gitdir(w + "/.git");
  write(w + "/.bashrc");
  write(w + "/a/b/.env");
  fs::create_directories(w + "/a/b/c/d");
  fs::create_directory_symlink("/etc", w + "/a/b/c/etc-link");   // depth 4: reported
  fs::create_directory_symlink("/etc", w + "/a/b/c/d/too-deep");  // depth 5: not
  for (int i = 0; i < 12; ++i) {
    const std::string p = w + "/packages/p" + std::to_string(i);
    gitdir(p + "/.git");
    write(p + "/.mcp.json");
    for (int k = 0; k < 3; ++k) write(p + "/src/m" + std::to_string(k) + "/lib/deep/f.js");
  }
  for (int i = 0; i < 20; ++i) write(w + "/node_modules/m" + std::to_string(i) + "/lib/x/y/f" + std::to_string(i) + ".js");
  // Leaves below the reported depths that hold what a leaf can: a `.git` file, a `.git` link.
  write(w + "/node_modules/m3/lib/x/y/.git", "gitdir: ../../../../../.git\n");
  fs::create_symlink("../../../../../.git", w + "/node_modules/m7/lib/x/y/.git");
  gitdir(w + "/vendor/v/w/bare.git");
  gitdir(w + "/vendor/v/w/z/q/.git");
}

bool same(const WorkspaceWalk& a, const WorkspaceWalk& b) {
  auto git = [](const std::vector<FoundGit>& v) {
    std::vector<std::pair<int, std::string>> out;
    for (const auto& g : v) out.emplace_back(int(g.kind), g.path);
    return out;
  };
  auto names = [](const std::vector<WalkEntry>& v) {
    std::vector<std::pair<std::string, unsigned>> out;
    for (const auto& e : v) out.emplace_back(e.rel, e.type);
    return out;
  };
  auto links = [](const std::vector<WalkLink>& v) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& l : v) out.emplace_back(l.rel, l.text);
    return out;
  };
  return git(a.git) == git(b.git) && git(a.git_walk_order) == git(b.git_walk_order) &&
         names(a.dotnames) == names(b.dotnames) && links(a.links) == links(b.links) && a.entries == b.entries &&
         a.dirs == b.dirs && a.truncated == b.truncated && a.unreadable == b.unreadable;
}

// Whether this build and the filesystem under `p` let the walk trust a link count (dir_list.hpp);
// elsewhere every dir is listed.
bool exact_fs(const std::string& p) {
#if BLAUDE_LINUX_CALLS
  struct statfs s;
  REQUIRE(::statfs(p.c_str(), &s) == 0);
  return s.f_type == 0xEF53 || s.f_type == 0x01021994 || s.f_type == 0x58465342;
#else
  (void)p;
  return false;
#endif
}

bool leaf(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(fd);
  LeafCheck c;
  return c.no_subdirs(fd.get());
}

}  // namespace

TEST_CASE("workspace walk: four threads give the one-thread walk's result, in its order", "[workspace][walk]") {
  TempDir t{"blaude-walk"};
  build(t.path);
  WalkLimits one;
  one.threads = 1;
  const WorkspaceWalk ref = walk_workspace(t.path, one);
  REQUIRE(ref.dirs > 100);  // well past the dirs read before any thread starts
  REQUIRE_FALSE(ref.truncated);
  // What the tree holds is all there (so "the same" is not "the same nothing").
  auto found = [&](const std::string& rel) {
    for (const auto& g : ref.git)
      if (g.path == t.path + "/" + rel) return true;
    return false;
  };
  CHECK(found(".git"));
  CHECK(found("packages/p11/.git"));
  CHECK(found("node_modules/m3/lib/x/y/.git"));
  CHECK(found("node_modules/m7/lib/x/y/.git"));
  CHECK(found("vendor/v/w/bare.git"));
  CHECK(found("vendor/v/w/z/q/.git"));
  CHECK(ref.links.size() == 1);
  CHECK(ref.git_walk_order.front().path == t.path + "/.git");
  for (int threads : {2, 4, 4, 4, 4}) {
    WalkLimits lim;
    lim.threads = threads;
    INFO("threads " << threads);
    CHECK(same(ref, walk_workspace(t.path, lim)));
  }
  // Control: the comparison sees a difference in the walk's order alone.
  WorkspaceWalk swapped = ref;
  std::swap(swapped.git_walk_order[1], swapped.git_walk_order[2]);
  CHECK_FALSE(same(ref, swapped));
}

TEST_CASE("dir listing: a dir without subdirs is a leaf by its link count, on filesystems that keep it", "[workspace][walk]") {
  TempDir t{"blaude-leaf"};
  const std::string d = t.path + "/d";
  write(d + "/file");
  write(d + "/.git", "gitdir: /x\n");
  fs::create_symlink("/etc", d + "/link");
  if (!exact_fs(t.path)) {
    CHECK_FALSE(leaf(d));  // any other filesystem: always listed
    return;
  }
  CHECK(leaf(d));
  fs::create_directory(d + "/sub");  // control: one subdir and it is listed again
  CHECK_FALSE(leaf(d));
  fs::remove(d + "/sub");
  CHECK(leaf(d));
}

TEST_CASE("workspace walk: a leaf below the reported depths is not listed; its .git file is found", "[workspace][walk]") {
  TempDir t{"blaude-leafwalk"};
  const std::string leafdir = t.path + "/a/b/c/d/e";  // its entries are at depth 6
  for (int i = 0; i < 50; ++i) write(leafdir + "/f" + std::to_string(i));
  write(leafdir + "/.git", "gitdir: ../../../../../.git\n");
  WalkLimits lim;
  lim.threads = 1;
  WorkspaceWalk w = walk_workspace(t.path, lim);
  REQUIRE(w.git.size() == 1);
  CHECK(w.git[0].path == leafdir + "/.git");
  CHECK(w.git[0].kind == FoundGit::File);
  if (!exact_fs(t.path)) return;
  CHECK(w.entries == 5 + 1);  // a, b, c, d, e and the leaf's .git: its 50 files were never read
  // Control: the same dir with a subdir is listed, every entry.
  fs::create_directory(leafdir + "/sub");
  w = walk_workspace(t.path, lim);
  CHECK(w.entries == 5 + 1 + 50 + 1);
  REQUIRE(w.git.size() == 1);
  CHECK(w.git[0].path == leafdir + "/.git");
}
