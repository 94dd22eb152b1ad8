// An audit walk that stops at a limit (depth here; time the same way) makes what it did not check
// inert: a repository below the limit that the start did not have is moved aside, not only named.
#include <algorithm>
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

TEST_CASE("audit limits: a hooks dir full of large files does not keep the walk from the next repository",
          "[audit][limits]") {
  // The walk's digests are bounded in all (WalkInput::digest_budget, 1 MiB here): past it a file
  // is identified by size, inode and ctime. Repository b comes after a's hooks in the walk.
  TempDir t{"blaude-audit-limits"};
  const std::string w = t.path + "/ws";
  const std::string hooks = w + "/a/.git/hooks";
  write(w + "/a/.git/config", "[core]\n");
  write(w + "/b/.git/config", "[core]\n");
  write(hooks + "/p1", std::string(600 << 10, 'x'));  // the user's: both digested at the start
  write(hooks + "/p2", std::string(300 << 10, 'y'));
  WalkInput in = shallow(w, 1.0);
  in.digest_budget = 1 << 20;
  const Snapshot before = take_snapshot(in);
  REQUIRE(before.complete);
  REQUIRE(before.files.count(hooks + "/p1"));
  CHECK(before.files.at(hooks + "/p1").digest.rfind("large:", 0) == std::string::npos);
  // The agent adds a hook that sorts first (600 KiB: p1 no longer fits the budget) and plants a
  // key in b.
  write(hooks + "/p0", std::string(600 << 10, 'z'));
  write(w + "/b/.git/config", "[core]\n\tfsmonitor = touch /tmp/x\n");
  const Snapshot after = take_snapshot(in);
  CHECK(after.complete);
  CHECK(after.files.at(hooks + "/p1").digest.rfind("large:", 0) == 0);  // identified, not read
  CHECK(after.files.at(hooks + "/p2").digest == before.files.at(hooks + "/p2").digest);
  const auto findings = compare(before, after, {{w}, "STAMP"});
  auto at = [&](const std::string& p) {
    return std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.path == p; });
  };
  CHECK(at(w + "/b/.git/config") != findings.end());  // reached, and its key found
  // p1, digested before and identified after, counts as changed: what cannot be compared goes.
  REQUIRE(at(hooks + "/p1") != findings.end());
  CHECK(at(hooks + "/p1")->act == Act::MoveAside);
  REQUIRE(at(hooks + "/p0") != findings.end());
  CHECK(at(hooks + "/p0")->act == Act::MoveAside);
  CHECK(at(hooks + "/p2") == findings.end());  // unchanged and compared: left alone
}

TEST_CASE("audit limits: within the digest budget a hook is compared by content (the control)", "[audit][limits]") {
  TempDir t{"blaude-audit-limits"};
  const std::string w = t.path + "/ws";
  const std::string hooks = w + "/a/.git/hooks";
  write(w + "/a/.git/config", "[core]\n");
  write(hooks + "/p1", std::string(600 << 10, 'x'));
  WalkInput in = shallow(w, 1.0);  // the default budget (64 MiB)
  const Snapshot before = take_snapshot(in);
  write(hooks + "/p0", std::string(600 << 10, 'z'));
  const Snapshot after = take_snapshot(in);
  CHECK(after.files.at(hooks + "/p1").digest == before.files.at(hooks + "/p1").digest);
  const auto findings = compare(before, after, {{w}, "STAMP"});
  CHECK(std::none_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.path == hooks + "/p1"; }));
}
