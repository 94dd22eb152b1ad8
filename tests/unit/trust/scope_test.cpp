#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "temp_dir.hpp"
#include "sandbox/trust/io.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::trust;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("trust scope: worktrees share the main checkout's common dir", "[trust]") {
  TempDir t{"blaude-scope"};
  const std::string main = t.path + "/main", wt = t.path + "/wt";
  fs::create_directories(main + "/.git/worktrees/wt");
  fs::create_directories(main + "/sub/deeper");
  fs::create_directories(wt + "/sub");
  write(wt + "/.git", "gitdir: " + main + "/.git/worktrees/wt\n");
  write(main + "/.git/worktrees/wt/commondir", "../..\n");
  write(main + "/.blaude", "");
  write(wt + "/.blaude", "");

  CHECK(find_git_common_dir(main) == main + "/.git");
  CHECK(find_git_common_dir(main + "/sub/deeper") == main + "/.git");
  CHECK(find_git_common_dir(wt) == main + "/.git");
  CHECK(find_git_common_dir(wt + "/sub") == main + "/.git");
  CHECK(trust_scope(wt, wt + "/.blaude") == "repo:" + main + "/.git");
  CHECK(trust_scope(t.path, t.path + "/x/.blaude") == "path:" + t.path + "/x/.blaude");
}

TEST_CASE("trust io: the policy file is read once, never through a symlink", "[trust]") {
  TempDir t{"blaude-scope"};
  write(t.path + "/real", "allow-read ~/x\n");
  fs::create_symlink(t.path + "/real", t.path + "/link");
  auto r = read_file_once(t.path + "/real");
  CHECK(r.exists);
  CHECK(r.error.empty());
  CHECK(r.content == "allow-read ~/x\n");
  auto l = read_file_once(t.path + "/link");
  CHECK(l.exists);
  CHECK(l.error.find("symbolic link") != std::string::npos);
  CHECK_FALSE(read_file_once(t.path + "/missing").exists);
  CHECK(read_file_once(t.path).error.find("regular") != std::string::npos);
  write(t.path + "/big", std::string(300 * 1024, 'x'));
  CHECK(read_file_once(t.path + "/big").error.find("too large") != std::string::npos);
}

TEST_CASE("trust io: the ledger is private, atomic and refuses a planted one", "[trust]") {
  TempDir t{"blaude-scope"};
  const std::string cfg = t.path + "/cfg/blaude";
  std::string err;
  {
    auto lock = LedgerLock::acquire(cfg, err);
    REQUIRE(lock);
    auto l = load_ledger(cfg, err);
    REQUIRE(l);
    CHECK(l->entries.empty());
    record_trust(*l, {"repo:/r", "h", "b", "/r/.blaude", {}});
    REQUIRE(save_ledger(cfg, *l, err));
  }
  CHECK((fs::status(cfg).permissions() & fs::perms::all) == fs::perms::owner_all);
  CHECK((fs::status(cfg + "/trusted").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
  auto back = load_ledger(cfg, err);
  REQUIRE(back);
  CHECK(back->entries.size() == 1);
  // No temp files left behind by the atomic replace.
  int files = 0;
  for (const auto& e : fs::directory_iterator(cfg)) files += e.is_regular_file();
  CHECK(files == 2);  // trusted + trusted.lock
  // A ledger others can write could have been planted: refuse it.
  fs::permissions(cfg + "/trusted", fs::perms::others_write, fs::perm_options::add);
  CHECK_FALSE(load_ledger(cfg, err));
  CHECK(err.find("not a private file") != std::string::npos);
}
