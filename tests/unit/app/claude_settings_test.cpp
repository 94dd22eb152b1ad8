// Claude's settings: bypass-mode blockers (parsed JSON, not regexes) and the onboarding flags
// (merged without losing keys, atomic, 0600, never through a symlink).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catch.hpp"
#include "app/claude_settings.hpp"

using namespace blaude::app;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "blaude-settings-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void write(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }

}  // namespace

TEST_CASE("blocks_bypass reads the real key, not text that looks like it") {
  CHECK(blocks_bypass(R"({"permissions": {"disableBypassPermissionsMode": "disable"}})"));
  CHECK(blocks_bypass("{\n  \"permissions\" : {\"allow\": [], \"disableBypassPermissionsMode\"\n:\n\"disable\"}}"));
  CHECK(blocks_bypass(R"({"permissions": {"disableBypassPermissionsMode": "\u0064isable"}})"));
  CHECK(blocks_bypass("// comment\n{\"permissions\": {\"disableBypassPermissionsMode\": \"disable\"}}"));
  CHECK_FALSE(blocks_bypass(R"({"disableBypassPermissionsMode": "disable"})"));  // not under permissions
  CHECK_FALSE(blocks_bypass(R"({"permissions": {"disableBypassPermissionsMode": "enable"}})"));
  CHECK_FALSE(blocks_bypass(R"({"permissions": {"note": "\"disableBypassPermissionsMode\": \"disable\""}})"));
  CHECK_FALSE(blocks_bypass(R"({"permissions": {"disableBypassPermissionsMode": "disable")"));  // malformed
  CHECK_FALSE(blocks_bypass(""));
  CHECK_FALSE(blocks_bypass("[1,2]"));
}

TEST_CASE("settings files in the seed's order, workspace skipped under --tmp") {
  auto f = settings_files("/h", "", "/w", false, {"/etc/claude-code/managed-settings.d/b.json",
                                                  "/etc/claude-code/managed-settings.d/a.json"});
  CHECK(f == std::vector<std::string>{"/h/.claude/settings.json",
                                      "/etc/claude-code/managed-settings.json",
                                      "/etc/claude-code/managed-settings.d/a.json",
                                      "/etc/claude-code/managed-settings.d/b.json",
                                      "/w/.claude/settings.json", "/w/.claude/settings.local.json"});
  auto g = settings_files("/h", "/cfg", "/w", true, {});
  CHECK(g == std::vector<std::string>{"/cfg/settings.json", "/etc/claude-code/managed-settings.json",
                                      "/h/.claude/settings.json"});
}

TEST_CASE("bypass warning names the file and who can change it") {
  auto m = bypass_warning("/etc/claude-code/managed-settings.json");
  REQUIRE(m.size() == 3);
  CHECK(m[0].find("/etc/claude-code/managed-settings.json") != std::string::npos);
  CHECK(m[2].find("enterprise-managed") != std::string::npos);
  CHECK(bypass_warning("/w/.claude/settings.json")[2].find("Remove the key") != std::string::npos);
  CHECK_FALSE(is_managed("/etc/claude-code-other/x.json"));
}

TEST_CASE("find_bypass_blocker: the first blocking file on disk") {
  TempDir d;
  write(d.path / "a.json", R"({"permissions": {"allow": ["Bash"]}})");
  write(d.path / "b.json", "not json");
  write(d.path / "c.json", R"({"permissions": {"disableBypassPermissionsMode": "disable"}})");
  write(d.path / "d.json", R"({"permissions": {"disableBypassPermissionsMode": "disable"}})");
  auto p = [&](const char* n) { return (d.path / n).string(); };
  CHECK(find_bypass_blocker({p("missing.json"), p("a.json"), p("b.json"), p("c.json"), p("d.json")}) ==
        p("c.json"));
  CHECK_FALSE(find_bypass_blocker({p("a.json"), p("b.json")}).has_value());
  fs::create_directory(d.path / "m.d");
  write(d.path / "m.d" / "x.json", "{}");
  write(d.path / "m.d" / "y.txt", "{}");
  CHECK(list_json_files((d.path / "m.d").string()) == std::vector<std::string>{p("m.d/x.json")});
}

TEST_CASE("merge_onboarding keeps every other key and their order") {
  auto m = merge_onboarding(R"({"zeta": 1, "projects": {"/a": {"x": [1, 2.5, null]}}, "alpha": "s"})");
  REQUIRE(m.kind == OnboardingMerge::Updated);
  auto j = nlohmann::ordered_json::parse(m.text);
  CHECK(j["zeta"] == 1);
  CHECK(j["projects"]["/a"]["x"][1] == 2.5);
  CHECK(j["alpha"] == "s");
  CHECK(j["hasCompletedOnboarding"] == true);
  CHECK(j["bypassPermissionsModeAccepted"] == true);
  CHECK(j.begin().key() == "zeta");
  CHECK(m.text.find("\"zeta\"") < m.text.find("\"alpha\""));

  CHECK(merge_onboarding(R"({"hasCompletedOnboarding": true, "bypassPermissionsModeAccepted": true})").kind ==
        OnboardingMerge::Unchanged);
  auto f = merge_onboarding(R"({"hasCompletedOnboarding": "true", "bypassPermissionsModeAccepted": true})");
  CHECK(f.kind == OnboardingMerge::Updated);  // a string is not true
  CHECK(merge_onboarding("{broken").kind == OnboardingMerge::Malformed);
  CHECK(merge_onboarding("[]").kind == OnboardingMerge::Malformed);  // bash replaced it with {}
  CHECK(merge_onboarding("").kind == OnboardingMerge::Malformed);
  CHECK(nlohmann::json::parse(kFreshOnboarding)["bypassPermissionsModeAccepted"] == true);
}

TEST_CASE("onboarding files: ~/.claude.json and $CLAUDE_CONFIG_DIR/.claude.json") {
  CHECK(onboarding_files("/h", "") == std::vector<std::string>{"/h/.claude.json"});
  CHECK(onboarding_files("/h", "/c") == std::vector<std::string>{"/h/.claude.json", "/c/.claude.json"});
  CHECK(onboarding_files("/h", "/h") == std::vector<std::string>{"/h/.claude.json"});
}

TEST_CASE("ensure_onboarding_file on disk") {
  TempDir d;
  auto file = d.path / ".claude.json";

  SECTION("missing: created with both flags, mode 0600") {
    CHECK(ensure_onboarding_file(file.string()).empty());
    CHECK(slurp(file) == kFreshOnboarding);
    CHECK((fs::status(file).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  }
  SECTION("missing parent directory is created") {
    auto nested = d.path / "cfg" / ".claude.json";
    CHECK(ensure_onboarding_file(nested.string()).empty());
    CHECK(slurp(nested) == kFreshOnboarding);
  }
  SECTION("existing: merged atomically, other keys kept, inode replaced, 0600") {
    write(file, R"({"userID": "abc", "numStartups": 3})");
    ::chmod(file.c_str(), 0644);
    struct stat before {};
    ::stat(file.c_str(), &before);
    CHECK(ensure_onboarding_file(file.string()).empty());
    auto j = nlohmann::json::parse(slurp(file));
    CHECK(j["userID"] == "abc");
    CHECK(j["numStartups"] == 3);
    CHECK(j["hasCompletedOnboarding"] == true);
    struct stat after {};
    ::stat(file.c_str(), &after);
    CHECK(before.st_ino != after.st_ino);  // renamed into place, not rewritten in place
    CHECK((after.st_mode & 0777) == 0600);
    // Idempotent: nothing to do the second time, the file stays as it is.
    CHECK(ensure_onboarding_file(file.string()).empty());
    struct stat again {};
    ::stat(file.c_str(), &again);
    CHECK(again.st_ino == after.st_ino);
    // No temporary files left behind.
    int entries = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(d.path)) ++entries;
    CHECK(entries == 1);
  }
  SECTION("malformed JSON: left untouched, with a warning") {
    write(file, "{\"half\": ");
    auto w = ensure_onboarding_file(file.string());
    REQUIRE_FALSE(w.empty());
    CHECK(w[0].find("left untouched") != std::string::npos);
    CHECK(slurp(file) == "{\"half\": ");
  }
  SECTION("attack: a symlink is refused and its target is not written") {
    auto target = d.path / "bashrc";
    write(target, "echo original\n");
    fs::create_symlink(target, file);
    auto w = ensure_onboarding_file(file.string());
    REQUIRE_FALSE(w.empty());
    CHECK(w[0].find("symlink") != std::string::npos);
    CHECK(slurp(target) == "echo original\n");
    CHECK(fs::is_symlink(file));
    // Control: the same call on a regular file does write, so the refusal is what protected it.
    fs::remove(file);
    write(file, "{}");
    CHECK(ensure_onboarding_file(file.string()).empty());
    CHECK(slurp(file).find("hasCompletedOnboarding") != std::string::npos);
  }
  SECTION("a dangling symlink is refused too (no file created at its target)") {
    auto target = d.path / "created-by-attack";
    fs::create_symlink(target, file);
    CHECK_FALSE(ensure_onboarding_file(file.string()).empty());
    CHECK_FALSE(fs::exists(target));
  }
}
