// The mounts bwrap makes by path are re-checked from inside (mount_checks.hpp,
// plan_verify.cpp). The record's format, the checks against the real file system (a bind is
// checked at its host path here: same object, so the control passes; a swap fails), and which
// mounts the planner lists.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "temp_dir.hpp"
#include "fake_host.hpp"
#include "sandbox/bwrap/plan/held.hpp"
#include "sandbox/bwrap/run/mount_checks.hpp"
#include "sandbox/request.hpp"

using namespace blaude;
using namespace blaude::sandbox;
using namespace blaude::sandbox::bwrap;
using namespace blaude::testing;
namespace fs = std::filesystem;

namespace {

const MountCheck* check_at(const LaunchPlan& p, const std::string& dst) {
  for (const auto& c : p.checks)
    if (c.dst == dst) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("mount checks: the record round-trips, anything else is refused", "[sandbox][mount_checks]") {
  std::vector<CheckLine> v{{MountCheck::Kind::Bind, 65024, 12, true, "/workspaces/a b\nc"},
                           {MountCheck::Kind::Tmpfs, 0, 0, false, "/tmp/.X11-unix"}};
  auto back = parse_check_lines(format_check_lines(v));
  REQUIRE(back);
  CHECK(*back == v);
  CHECK(parse_check_lines("")->empty());
  for (std::string bad : {std::string("B 1 2 0 /x"), std::string("X 1 2 0 /x\0", 11), std::string("B 1 2 2 /x\0", 11),
                          std::string("B 1 -2 0 /x\0", 12), std::string("B 1 2 0 x\0", 10), std::string("B 1 2 0 \0", 9)})
    CHECK_FALSE(parse_check_lines(bad));
}

// blaude-exec (src/shim_main.cpp) may come from another build than the blaude that starts it; the
// protocol number in its verb (sandbox/request.hpp) is what keeps the two from misreading each
// other. This is the record of protocol 1, byte for byte, with the environment variable that
// turns the checks on. If this fails, the format changed: bump the number after '@' in kShimVerb
// and kShimVerbOnPty, then update the expectation here.
TEST_CASE("mount checks: the record is the shim protocol's, byte for byte", "[sandbox][mount_checks]") {
  std::vector<CheckLine> v{{MountCheck::Kind::Bind, 65024, 12, true, "/workspaces/a"},
                           {MountCheck::Kind::Tmpfs, 0, 0, false, "/tmp/.X11-unix"}};
  CHECK(format_check_lines(v) == std::string("B 65024 12 1 /workspaces/a\0T 0 0 0 /tmp/.X11-unix\0", 50));
  CHECK(std::string(kChecksEnv) == "BLAUDE_MOUNT_CHECKS");
  CHECK(std::string(kChecksFile) == "/run/blaude/checks");
  CHECK(std::string(kShimVerb) == "__exec@1");
  CHECK(std::string(kShimVerbOnPty) == "__exec-pty@1");
}

TEST_CASE("mount checks: the recorded object passes, a swapped one does not", "[sandbox][mount_checks]") {
  TempDir t{"mount-checks-test"};
  const std::string ws = t.path + "/p/ws", secret = t.path + "/secret/ws";
  fs::create_directories(ws);
  fs::create_directories(secret);
  auto rec = record_checks({{MountCheck::Kind::Bind, ws, ws, false, {}}});
  REQUIRE(rec.size() == 1);
  CHECK(verify_mounts(rec).empty());  // control: the very object
  // Read-only was meant, and this is a writable fs.
  auto ro = rec;
  ro[0].ro = true;
  CHECK(verify_mounts(ro).find("not read-only") != std::string::npos);
  // The parent swapped for a symlink to a dir holding the same name (what bwrap would have bound).
  fs::rename(t.path + "/p", t.path + "/p.real");
  fs::create_directory_symlink(t.path + "/secret", t.path + "/p");
  CHECK(verify_mounts(rec).find("symlink") != std::string::npos);
  auto at_secret = rec;
  at_secret[0].dst = secret;  // where it led: another object
  CHECK(verify_mounts(at_secret).find("another object") != std::string::npos);
  // The launcher's record refuses a source with a symlink on the way.
  CHECK_THROWS_AS(record_checks({{MountCheck::Kind::Bind, ws, ws, false, {}}}), HeldPathChanged);
  // And a source that is no longer what the probe saw (a real dir, renamed in).
  fs::remove(t.path + "/p");
  fs::rename(t.path + "/secret", t.path + "/p");
  struct stat st;
  REQUIRE(::stat((t.path + "/p.real/ws").c_str(), &st) == 0);
  Identity probed{(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, S_IFDIR};
  CHECK_THROWS_AS(record_checks({{MountCheck::Kind::Bind, ws, ws, false, probed}}), HeldPathChanged);
  // A tmpfs check on a plain dir of the parent's file system: not a tmpfs mount of its own.
  CHECK(!verify_mounts({{MountCheck::Kind::Tmpfs, 0, 0, false, ws}}).empty());
  // A missing or malformed record refuses.
  CHECK(!verify_mounts_file(t.path + "/none").empty());
  std::ofstream(t.path + "/bad") << "B 1 2 0 /x";
  CHECK(!verify_mounts_file(t.path + "/bad").empty());
}

TEST_CASE("mount checks: the planner lists every by-path mount still visible", "[sandbox][mount_checks]") {
  auto f = typical_host();
  f.self_exe = "/home/u/.local/bin/blaude";
  f.cwd_id = {1, 42, S_IFDIR};
  auto p = plan(SandboxRequest{}, f);
  const MountCheck* ws = nullptr;
  for (const auto& c : p.checks)
    if (c.host == "/home/u/proj" && c.dst == "/home/u/proj") ws = &c;
  REQUIRE(ws);
  CHECK(ws->kind == MountCheck::Kind::Bind);
  CHECK_FALSE(ws->ro);
  CHECK(ws->id == f.cwd_id);  // the workspace: blaude's own cwd, not what its path resolved to
  REQUIRE(check_at(p, kSandboxSelf));
  CHECK(check_at(p, kSandboxSelf)->ro);
  // Nothing hidden by a later mount is listed (its destination could not be checked).
  for (const auto& c : p.checks) {
    size_t n = 0;
    for (const auto& d : p.checks) n += d.dst == c.dst;
    CHECK(n == 1);
  }
  // -m dirs are by-path binds too.
  SandboxRequest m;
  m.mounts = {{"/data/x", false}};
  put(f, "/data/x", Kind::Dir);
  f.mount_paths = {"/data/x"};
  f.mounts = {fact(Kind::Dir, "/data/x")};
  auto pm = plan(m, f);
  CHECK(check_at(pm, "/data/x"));
  // The control knob (a warning says so), and no shim: nothing is checked.
  f.env["BLAUDE_MOUNT_CHECKS"] = "off";
  auto off = plan(SandboxRequest{}, f);
  CHECK(off.checks.empty());
  CHECK(std::any_of(off.warnings.begin(), off.warnings.end(), [](const std::string& w) { return w.find("BLAUDE_MOUNT_CHECKS=off") != std::string::npos; }));
  f.env.erase("BLAUDE_MOUNT_CHECKS");
  f.self_exe.clear();
  auto noshim = plan(SandboxRequest{}, f);
  CHECK(noshim.checks.empty());
}
