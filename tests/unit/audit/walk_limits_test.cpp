// An audit walk that stops at a limit (depth here; time the same way) makes what it did not check
// inert: a repository below the limit that the start did not have is moved aside, not only named.
#include <filesystem>
#include <fstream>
#include <string>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/report.hpp"
#include "audit/walk.hpp"
#include "catch.hpp"
#include "temp_dir.hpp"

using namespace blaude::audit;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const std::string& p, const std::string& text) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << text;
}
WalkInput shallow(const std::string& root, double sweep) {
  WalkInput in;
  in.roots = {root};
  in.home = "/nonexistent";
  in.max_depth = 2;
  in.sweep_seconds = sweep;
  return in;
}

}  // namespace

TEST_CASE("audit limits: a new repository below the depth limit is moved aside", "[audit][limits]") {
  TempDir t{"blaude-audit-limits"};
  const std::string w = t.path + "/ws";
  write(w + "/a/b/c/old/.git/config", "[core]\n");  // the user's, deeper than the limit
  const Snapshot before = take_snapshot(shallow(w, 1.0));
  CHECK_FALSE(before.complete);
  CHECK(before.unchecked.count(w + "/a/b/c/old/.git"));
  write(w + "/a/b/c/d/e/new/.git/config", "[core]\n\tfsmonitor = touch /tmp/x\n");
  const Snapshot after = take_snapshot(shallow(w, 1.0));
  CHECK(after.swept);
  const auto findings = compare(before, after, {{w}, "STAMP"});
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].path == w + "/a/b/c/d/e/new/.git");
  CHECK(findings[0].act == Act::MoveAside);
  const auto applied = apply_findings(findings, {w});
  CHECK_FALSE(fs::exists(w + "/a/b/c/d/e/new/.git"));
  CHECK(fs::exists(w + "/a/b/c/d/e/new/.git.blaude-audit-STAMP/config"));
  CHECK(fs::exists(w + "/a/b/c/old/.git/config"));  // the user's stays
  const std::string report = report_text(findings, applied, before, after);
  CHECK(report.find("did not get to check") != std::string::npos);
  CHECK(report.find("was moved aside") != std::string::npos);
}

TEST_CASE("audit limits: without the names-only pass nothing is moved (the control)", "[audit][limits]") {
  TempDir t{"blaude-audit-limits"};
  const std::string w = t.path + "/ws";
  fs::create_directories(w + "/a");
  const Snapshot before = take_snapshot(shallow(w, 0));
  write(w + "/a/b/c/d/new/.git/config", "[core]\n\tfsmonitor = touch /tmp/x\n");
  const Snapshot after = take_snapshot(shallow(w, 0));
  CHECK_FALSE(after.complete);
  CHECK(compare(before, after, {{w}, "S"}).empty());
}
