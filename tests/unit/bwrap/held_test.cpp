// The launcher's held binds (held.hpp) against the real file system: a symlink anywhere on the
// path, a swapped object, or a dir that appeared since the probe is refused; the rewrite of argv.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "temp_dir.hpp"
#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/run/launch.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

Identity id_of(const std::string& p) {
  struct stat st;
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(st.st_mode & S_IFMT)};
}

}  // namespace

TEST_CASE("held paths: the probed object is held, a swapped one is refused", "[sandbox][held]") {
  TempDir t{"held-test"};
  fs::create_directories(t.path + "/ws/.git/hooks");
  fs::create_directories(t.path + "/secret");
  const std::string hooks = t.path + "/ws/.git/hooks";
  const Identity id = id_of(hooks);
  CHECK(hold_path({0, hooks, id, false}));
  // Control above; now the swap: a symlink in its place (to a dir of the same kind).
  fs::rename(hooks, t.path + "/ws/.git/hooks.real");
  fs::create_directory_symlink(t.path + "/secret", hooks);
  CHECK_THROWS_AS(hold_path({0, hooks, id, false}), HeldPathChanged);
  CHECK_THROWS_AS(hold_path({0, hooks, Identity{0, 0, S_IFDIR}, false}), HeldPathChanged);
  // A real dir of the same kind but another object.
  fs::remove(hooks);
  fs::create_directory(hooks);
  CHECK_THROWS_AS(hold_path({0, hooks, id, false}), HeldPathChanged);
  // A symlink higher up the path.
  fs::rename(t.path + "/ws/.git", t.path + "/ws/git.real");
  fs::create_directory_symlink(t.path + "/ws/git.real", t.path + "/ws/.git");
  CHECK_THROWS_AS(hold_path({0, hooks, Identity{0, 0, S_IFDIR}, false}), HeldPathChanged);
}

TEST_CASE("held paths: a missing dir is created once and held; one that appeared is refused", "[sandbox][held]") {
  TempDir t{"held-test"};
  fs::create_directories(t.path + "/ws/.git");
  const std::string hooks = t.path + "/ws/.git/hooks";
  const Identity parent = id_of(t.path + "/ws/.git");
  std::vector<std::string> argv = {"bwrap", "--ro-bind", hooks, "/w/.git/hooks", "--ro-bind", hooks, "/t/.git/hooks", "--", "true"};
  std::vector<HeldPath> held = {{1, hooks, parent, true}, {4, hooks, parent, true}};
  std::vector<UniqueFd> fds;
  std::vector<int> keep;
  hold_binds(argv, held, fds, keep);
  CHECK(fs::is_directory(hooks));
  CHECK(argv[1] == "--ro-bind-fd");
  CHECK(argv[4] == "--ro-bind-fd");
  CHECK(argv[2] == std::to_string(keep.at(0)));
  CHECK(keep.size() == 2);
  // Run again: the dir exists now, so it was not made by this launch.
  std::vector<std::string> again = {"bwrap", "--ro-bind", hooks, "/w/.git/hooks", "--", "true"};
  std::vector<UniqueFd> fds2;
  std::vector<int> keep2;
  CHECK_THROWS_AS(hold_binds(again, {{1, hooks, parent, true}}, fds2, keep2), HeldPathChanged);
  CHECK(changed_held_path({{1, hooks, parent, true}}).empty());  // its parent is still the probed one
}

TEST_CASE("held paths: setup_done reads the marker's offset", "[sandbox][held]") {
  CHECK(setup_done(-1));
  TempDir t{"held-test"};
  std::ofstream(t.path + "/m") << "data";
  int fd = ::open((t.path + "/m").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  CHECK_FALSE(setup_done(fd));
  char c;
  REQUIRE(::read(fd, &c, 1) == 1);
  CHECK(setup_done(fd));
  ::close(fd);
}

// The launcher finds the end of bwrap's options where the planner rendered it, not by looking for
// the first "--": an option's value can be "--" (an environment variable's, say).
TEST_CASE("prepare_launch: the end of options is the plan's index, not the first \"--\"", "[sandbox][held]") {
  LaunchPlan p;
  p.argv = {"bwrap", "--setenv", "X", "--", "--", "true"};
  p.options_end = 4;
  PreparedLaunch out = prepare_launch(p);
  REQUIRE(out.argv.size() == 5);
  CHECK(out.argv[1] == "--args");
  CHECK(std::vector<std::string>(out.argv.begin() + 3, out.argv.end()) == std::vector<std::string>{"--", "true"});
  std::string packed(64, '\0');
  ssize_t n = ::pread(std::stoi(out.argv[2]), packed.data(), packed.size(), 0);
  REQUIRE(n > 0);
  packed.resize(size_t(n));
  CHECK(packed == std::string("--setenv\0X\0--\0", 14));
  LaunchPlan wrong = p;
  wrong.options_end = 3;
  wrong.argv[3] = "-";
  CHECK_THROWS_AS(prepare_launch(wrong), std::logic_error);
}
