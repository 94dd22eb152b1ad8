// The own-overlay probe's per-boot cache (sandbox/bwrap/probe/overlay_cache.hpp): what the key binds,
// that only a positive answer for the same key is read back, and that a cached answer that no
// longer holds is dropped by the confine step itself (with the real kernel).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "sandbox/bwrap/probe/confine.hpp"
#include "sandbox/bwrap/probe/overlay_cache.hpp"

using namespace blaude::sandbox::bwrap;
using blaude::sandbox::Confinement;
namespace fs = std::filesystem;

TEST_CASE("overlay cache: the key binds boot, kernel, bwrap and user", "[overlay_cache]") {
  const std::string k = own_overlay_key("b1", "6.18.0", "/usr/bin/bwrap dev=1 ino=2", 1000);
  REQUIRE_FALSE(k.empty());
  CHECK(own_overlay_cached(own_overlay_entry(k), k));
  // Control for each field: another value is another key, and the entry is not read back.
  for (const std::string& other :
       {own_overlay_key("b2", "6.18.0", "/usr/bin/bwrap dev=1 ino=2", 1000),
        own_overlay_key("b1", "6.19.0", "/usr/bin/bwrap dev=1 ino=2", 1000),
        own_overlay_key("b1", "6.18.0", "/usr/bin/bwrap dev=1 ino=3", 1000),
        own_overlay_key("b1", "6.18.0", "/usr/bin/bwrap dev=1 ino=2", 1001)}) {
    CHECK(other != k);
    CHECK_FALSE(own_overlay_cached(own_overlay_entry(k), other));
  }
  // Any field unknown: no key, nothing is ever read back (not even an entry for "").
  CHECK(own_overlay_key("", "6.18.0", "x", 1).empty());
  CHECK(own_overlay_key("b1", "", "x", 1).empty());
  CHECK(own_overlay_key("b1", "6.18.0", "", 1).empty());
  CHECK(own_overlay_key("b1\nown_overlay=1", "6.18.0", "x", 1).empty());
  CHECK_FALSE(own_overlay_cached(own_overlay_entry(""), ""));
}

TEST_CASE("overlay cache: only the exact positive entry counts", "[overlay_cache]") {
  const std::string k = own_overlay_key("b1", "6.18.0", "bw", 1000);
  CHECK_FALSE(own_overlay_cached(k + "\nown_overlay=0\n", k));
  CHECK_FALSE(own_overlay_cached(k + "\n", k));
  CHECK_FALSE(own_overlay_cached(own_overlay_entry(k) + "x", k));
  CHECK_FALSE(own_overlay_cached("", k));
}

TEST_CASE("overlay cache: the key of this host is stable within a boot", "[overlay_cache]") {
  const std::string a = own_overlay_key_now("/usr/bin/bwrap", getuid());
  REQUIRE_FALSE(a.empty());  // boot_id, uname and the installed bwrap are all there
  CHECK(a == own_overlay_key_now("/usr/bin/bwrap", getuid()));
  CHECK(a != own_overlay_key_now("/usr/bin/bwrap", getuid() + 1));
  CHECK(own_overlay_key_now("/nonexistent/bwrap", getuid()).empty());
}

namespace {

// Applies c in a forked child; its exit code (100 + step on a refused step, 0 when applied).
int confine_in_child(const Confinement& c) {
  PreparedConfinement p(c);
  pid_t pid = fork();
  if (pid == 0) {
    int step = 0;
    _exit(apply_confinement(p, &step) != 0 ? 100 + step : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

}  // namespace

TEST_CASE("overlay cache: a refused own overlay drops the cached answer", "[overlay_cache]") {
  std::string why;
  if (!own_overlay_works(&why)) FAIL("no unprivileged overlay here: " << why);
  char t[] = "/tmp/blaude-ovcache.XXXXXX";
  REQUIRE(mkdtemp(t));
  const std::string d = t, cache = d + "/own-overlay", lower = d + "/lower";
  fs::create_directory(lower);
  Confinement c;
  c.uid = getuid();
  c.gid = getgid();
  c.forget_on_failure = cache;
  // Control: the overlays are made, the entry stays.
  std::ofstream(cache) << "entry";
  c.overlays = {lower};
  CHECK(confine_in_child(c) == 0);
  CHECK(fs::exists(cache));
  // The overlay cannot be made (its dir is gone): the start stops and the entry is removed.
  c.overlays = {d + "/missing"};
  CHECK(confine_in_child(c) == 100 + kStepOverlay);
  CHECK_FALSE(fs::exists(cache));
  fs::remove_all(d);
}
