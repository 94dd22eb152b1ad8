// The audit of Claude Code's files fails closed: each file is read beneath a dir held from the
// start, without following a symlink the start did not have, non-blocking, regular files only,
// bounded; what cannot be read strictly is hostile whole, new files included; and applying the
// findings never touches anything outside (a `.claude` made a link into another project).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/audit.hpp"
#include "audit/apply.hpp"
#include "audit/report.hpp"
#include "catch.hpp"
#include "temp_dir.hpp"

using namespace blaude;
using blaude::testing::TempDir;
namespace fs = std::filesystem;

namespace {

using K = audit::ClaudeFile;

void write(const std::string& p, const std::string& text) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << text;
}
std::string read(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
const std::string kUser = R"({"model": "a", "hooks": {"Stop": [{"hooks": [{"command": "~/mine.sh"}]}]}})";
const std::string kEvil = R"({"hooks": {"SessionStart": [{"hooks": [{"command": "touch /tmp/x"}]}]}})";

struct Run {
  std::vector<audit::Finding> findings;
  std::vector<audit::Applied> applied;
  std::string report;
};
Run finish(const std::vector<app::WatchedClaude>& w) {
  Run r;
  r.findings = app::claude_findings(w, "STAMP");
  r.applied = audit::apply_findings(r.findings, {});
  r.report = audit::report_text(r.findings, r.applied, {}, {});
  return r;
}

}  // namespace

TEST_CASE("audit closed: unchanged files give nothing; a strict change is diffed as before", "[audit][closed]") {
  TempDir d;
  const std::string s = d.path + "/ws/.claude/settings.json";
  write(s, kUser);
  auto w = app::watch_claude(s, K::Settings, {d.path + "/ws"});
  REQUIRE(w.text == kUser);
  CHECK(app::claude_findings({w}, "S").empty());
  write(s, R"({"model": "b", "hooks": {"Stop": [{"hooks": [{"command": "~/mine.sh"}]}]}})");
  CHECK(app::claude_findings({w}, "S").empty());  // the model is no code
}

TEST_CASE("audit closed: what does not parse strictly is hostile whole, new files too", "[audit][closed]") {
  TempDir d;
  const std::string ws = d.path + "/ws";
  const std::string s = ws + "/.claude/settings.json", l = ws + "/.claude/settings.local.json";
  write(s, kUser);
  std::vector<app::WatchedClaude> w{app::watch_claude(s, K::Settings, {ws}), app::watch_claude(l, K::Settings, {ws})};
  SECTION("deep nesting") {
    write(s, "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + ", " + kEvil.substr(1));
    write(l, std::string(200000, '{'));
  }
  SECTION("duplicate keys") {
    write(s, R"({"hooks": {}, "hooks": {"SessionStart": []}})");
    write(l, R"({"hooks": {}, "\u0068ooks": {"SessionStart": []}})");
  }
  SECTION("lone surrogate, BOM, comment") {
    write(s, R"({"apiKeyHelper": "\ud800"})");
    write(l, "\xEF\xBB\xBF{}");
  }
  const Run r = finish(w);
  REQUIRE(r.findings.size() == 2);
  CHECK(read(s) == kUser);          // the start's text back
  CHECK_FALSE(fs::exists(l));       // there was none: nothing written in its place
  CHECK(fs::exists(l + ".blaude-audit-STAMP"));
  CHECK(r.applied[0].aside == s + ".blaude-audit-STAMP");
  CHECK(r.report.find("not strict JSON") != std::string::npos);
}

TEST_CASE("audit closed: a FIFO, a socket, a new symlink, an over-size file are hostile", "[audit][closed]") {
  TempDir d;
  const std::string ws = d.path + "/ws", s = ws + "/.claude/settings.json";
  write(s, kUser);
  auto w = app::watch_claude(s, K::Settings, {ws});
  std::string why;
  SECTION("fifo") {
    fs::remove(s);
    REQUIRE(::mkfifo(s.c_str(), 0600) == 0);
    why = "not a regular file";
  }
  SECTION("socket") {
    fs::remove(s);
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    REQUIRE(s.size() < sizeof a.sun_path);
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", s.c_str());
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    ::close(fd);
    why = "not a regular file";
  }
  SECTION("a symlink the start did not have") {
    write(d.path + "/elsewhere.json", kEvil);
    fs::remove(s);
    fs::create_symlink(d.path + "/elsewhere.json", s);
    why = "a symlink (to ";
  }
  SECTION("over the bound") {
    write(s, "{\"pad\": \"" + std::string((16 << 20) + 10, 'x') + "\"}");
    why = "larger than blaude reads";
  }
  const Run r = finish({w});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.report.find(why) != std::string::npos);
  CHECK(read(s) == kUser);
  CHECK(fs::is_regular_file(fs::symlink_status(s)));
  CHECK(fs::exists(fs::symlink_status(s + ".blaude-audit-STAMP")));
  CHECK(read(d.path + "/elsewhere.json").size() != kUser.size());  // a link's target untouched
}

TEST_CASE("audit closed: a FIFO at the start does not hang, and is moved aside at the end", "[audit][closed]") {
  TempDir d;
  const std::string ws = d.path + "/ws", s = ws + "/.claude/settings.local.json";
  fs::create_directories(ws + "/.claude");
  REQUIRE(::mkfifo(s.c_str(), 0600) == 0);
  auto w = app::watch_claude(s, K::Settings, {ws});  // a blocking open would hang here
  CHECK_FALSE(w.text);
  const Run r = finish({w});
  REQUIRE(r.findings.size() == 1);
  CHECK_FALSE(fs::exists(fs::symlink_status(s)));
}

TEST_CASE("audit closed: .claude made a link into another project is moved aside, that project untouched",
          "[audit][closed]") {
  TempDir d;
  const std::string ws = d.path + "/ws", other = d.path + "/other/.claude/settings.json";
  write(ws + "/.claude/settings.json", R"({"permissions": {"allow": []}})");
  write(other, kEvil);
  auto w = app::watch_claude(ws + "/.claude/settings.json", K::Settings, {ws});
  fs::rename(ws + "/.claude", ws + "/.claude-old");
  fs::create_directory_symlink(d.path + "/other/.claude", ws + "/.claude");
  const Run r = finish({w});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].path == ws + "/.claude");
  CHECK(read(other) == kEvil);
  CHECK_FALSE(fs::exists(d.path + "/other/.claude/settings.json.blaude-audit-STAMP"));
  CHECK_FALSE(fs::exists(fs::symlink_status(ws + "/.claude")));
  CHECK(fs::is_symlink(ws + "/.claude.blaude-audit-STAMP"));
}

TEST_CASE("audit closed: the user's own links at the start are followed as they were", "[audit][closed]") {
  TempDir d;
  // ~/.claude a link to a dotfiles dir, and settings.json a link inside it.
  write(d.path + "/dots/claude/real.json", kUser);
  fs::create_directories(d.path + "/home");
  fs::create_directory_symlink(d.path + "/dots/claude", d.path + "/home/.claude");
  fs::create_symlink("real.json", d.path + "/dots/claude/settings.json");
  auto w = app::watch_claude(d.path + "/home/.claude/settings.json", K::Settings, {d.path + "/home"});
  CHECK(w.text == kUser);
  CHECK(w.link == "real.json");
  CHECK(app::claude_findings({w}, "S").empty());
}

TEST_CASE("audit closed: a new file in a dir that did not exist at the start is still found", "[audit][closed]") {
  TempDir d;
  const std::string ws = d.path + "/ws";
  fs::create_directories(ws);
  auto w = app::watch_claude(ws + "/.claude/settings.local.json", K::Settings, {ws});
  write(ws + "/.claude/settings.local.json", kEvil + ",");
  const Run r = finish({w});
  REQUIRE(r.findings.size() == 1);
  CHECK_FALSE(fs::exists(ws + "/.claude/settings.local.json"));
}
