// blaude's own path: the fallback's argv[0] rule over real files, and which rule the build takes
// (the forced-fallbacks build must answer from argv[0], a normal Linux build from the kernel).
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "catch.hpp"
#include "common/platform.hpp"
#include "common/self_exe.hpp"

using namespace blaude;

namespace {

std::string real(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? buf : "";
}

std::string kernel_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

}  // namespace

TEST_CASE("self_exe: argv[0] is resolved as execvp found it", "[platform]") {
  char tmpl[] = "/tmp/blaude-selfexe-XXXXXX";
  std::string dir = real(mkdtemp(tmpl));
  REQUIRE(!dir.empty());
  std::string tool = dir + "/tool";
  std::ofstream(tool) << "#!/bin/sh\n";
  std::ofstream(dir + "/data") << "x";
  chmod(tool.c_str(), 0755);
  mkdir((dir + "/bin").c_str(), 0755);
  REQUIRE(symlink("../tool", (dir + "/bin/blaude").c_str()) == 0);  // how installs link it
  REQUIRE(symlink("../data", (dir + "/bin/data").c_str()) == 0);

  // A bare name: the first PATH entry holding it, through the symlink.
  CHECK(exe_from_argv0("blaude", "/nonexistent:" + dir + "/bin", "/") == tool);
  // Relative PATH entries ("" is the cwd) are read against the cwd blaude started in.
  CHECK(exe_from_argv0("blaude", ":/nonexistent", dir + "/bin") == tool);
  CHECK(exe_from_argv0("blaude", "bin", dir) == tool);
  CHECK_FALSE(exe_from_argv0("blaude", "bin", ""));  // no cwd known: skipped, not guessed
  // A path: against the cwd when relative, as it is when absolute.
  CHECK(exe_from_argv0("bin/../bin/blaude", "", dir) == tool);
  CHECK(exe_from_argv0("./tool", "/nonexistent", dir) == tool);
  CHECK(exe_from_argv0(dir + "/bin/blaude", "", "") == tool);
  CHECK_FALSE(exe_from_argv0("./tool", "", ""));
  // Not an executable file, or not there: no answer rather than a wrong one.
  CHECK_FALSE(exe_from_argv0("data", dir + "/bin", "/"));
  CHECK_FALSE(exe_from_argv0("bin", dir, "/"));  // a directory
  CHECK_FALSE(exe_from_argv0("missing", dir + "/bin", "/"));
  CHECK_FALSE(exe_from_argv0("", dir + "/bin", "/"));

  for (const char* f : {"/bin/blaude", "/bin/data", "/tool", "/data"}) unlink((dir + f).c_str());
  rmdir((dir + "/bin").c_str());
  rmdir(dir.c_str());
}

TEST_CASE("self_exe: the build answers by the rule it says it takes", "[platform]") {
  const std::string me = kernel_exe();
  REQUIRE(!me.empty());
  record_start("blaude-selfexe-test-no-such-name");
#if BLAUDE_LINUX_CALLS
  CHECK(self_exe() == me);  // the kernel's answer, whatever argv[0] says
#elif defined(__linux__)
  CHECK(self_exe() == "");  // forced fallbacks: argv[0] alone, and that one resolves nowhere
#endif
  record_start(me.c_str());
  CHECK(self_exe() == real(me));
}
