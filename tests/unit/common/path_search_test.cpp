#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "common/path_search.hpp"

using blaude::find_executable;
using blaude::RelativeEntries;

TEST_CASE("find_executable looks a name up like execvp") {
  char tmpl[] = "/tmp/blaude-pathsearch-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string exe = dir + "/tool", plain = dir + "/data";
  std::ofstream(exe) << "#!/bin/sh\n";
  std::ofstream(plain) << "x";
  chmod(exe.c_str(), 0755);
  chmod(plain.c_str(), 0644);
  mkdir((dir + "/sub").c_str(), 0755);

  CHECK(find_executable("tool", "/nonexistent:" + dir) == exe);
  CHECK_FALSE(find_executable("data", dir));  // not executable
  CHECK_FALSE(find_executable("sub", dir));   // a directory
  CHECK_FALSE(find_executable("", dir));
  CHECK(find_executable(exe, "") == exe);     // a path is checked as it is
  CHECK_FALSE(find_executable(plain, dir));

  // Relative entries: from the cwd for the host's own lookups, skipped for the sandbox probe.
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd));
  REQUIRE(chdir(dir.c_str()) == 0);
  CHECK(find_executable("tool", ":/nonexistent") == "./tool");
  CHECK(find_executable("tool", ".") == "./tool");
  CHECK_FALSE(find_executable("tool", ":.", RelativeEntries::Skip));
  CHECK(find_executable("tool", ".:" + dir, RelativeEntries::Skip) == exe);
  REQUIRE(chdir(cwd) == 0);

  unlink(exe.c_str());
  unlink(plain.c_str());
  rmdir((dir + "/sub").c_str());
  rmdir(dir.c_str());
}
