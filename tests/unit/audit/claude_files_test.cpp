// The audit's part for Claude Code's files: the code-bearing projection, the diff, the restore
// (pure), and the shared key list (common/claude_keys.hpp).
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "audit/claude_files.hpp"
#include "audit/report.hpp"
#include "catch.hpp"
#include "common/claude_keys.hpp"

using namespace blaude;
using namespace blaude::audit;

namespace {

using S = ClaudeFile;
nlohmann::json J(const std::string& s) { return nlohmann::json::parse(s); }
ClaudeProjection P(S k, const std::string& s) { return project_claude(k, s); }

}  // namespace

TEST_CASE("claude keys: one list names the programs and the code-bearing keys", "[audit][claude]") {
  auto cmds = claude_setting_commands(J(R"({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "a"}]}]},
    "statusLine": {"type": "command", "command": "b"}, "subagentStatusLine": {"command": "c"},
    "fileSuggestion": {"type": "command", "command": "d"}, "apiKeyHelper": "e", "gcpAuthRefresh": "f",
    "proxyAuthHelper": "g", "model": "opus", "env": {"X": "y"}})"));
  CHECK(cmds == std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g"});
  // Every key that names a program is code-bearing in the table, and so are the ones that let
  // code run.
  for (const char* k : {"hooks", "statusLine", "subagentStatusLine", "fileSuggestion", "apiKeyHelper", "awsCredentialExport",
                        "awsAuthRefresh", "gcpAuthRefresh", "otelHeadersHelper", "proxyAuthHelper", "env", "permissions",
                        "enabledPlugins", "extraKnownMarketplaces", "disableAllHooks", "enableAllProjectMcpServers",
                        "policyHelper", "sandbox", "agent", "claudeMd", "autoMemoryDirectory", "processWrapper"})
    CHECK(claude_key_class(ClaudeKeyScope::Settings, k) == ClaudeKeyClass::Code);
  // Control: claude's own choices are inert.
  for (const char* k : {"model", "outputStyle", "theme", "cleanupPeriodDays"})
    CHECK(claude_key_inert(ClaudeKeyScope::Settings, k));
  // A key the table does not know is not inert (and the audit treats it as code).
  CHECK_FALSE(claude_key_class(ClaudeKeyScope::Settings, "someFutureHookKey"));
  CHECK_FALSE(claude_key_inert(ClaudeKeyScope::Settings, "someFutureHookKey"));
  // ~/.claude.json: the trust dialog and approvals are code, the statistics inert.
  CHECK(claude_key_class(ClaudeKeyScope::ProjectState, "hasTrustDialogAccepted") == ClaudeKeyClass::Code);
  CHECK(claude_key_inert(ClaudeKeyScope::ProjectState, "lastCost"));
  CHECK(claude_key_inert(ClaudeKeyScope::State, "numStartups"));
  CHECK(claude_key_class(ClaudeKeyScope::State, "primaryApiKey") == ClaudeKeyClass::Code);
}

TEST_CASE("claude projection: an allowlist, unknown keys are code", "[audit][claude]") {
  auto p = P(S::Settings, R"({"model": "opus", "theme": "dark", "newThing": {"run": "x"}, "newFlag": false})");
  CHECK(p.keys.size() == 2);  // false is inert only for a key the table knows
  CHECK(p.keys.count({"newThing"}));
  CHECK(p.keys.count({"newFlag"}));
  auto st = P(S::State, R"({"numStartups": 3, "somethingNew": 1, "projects": {"/w": {"lastCost": 1,
    "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "newProjectKey": "x"}}})");
  CHECK(st.keys.size() == 3);
  CHECK(st.keys.count({"somethingNew"}));
  CHECK(st.keys.count({"projects", "/w", "hasTrustDialogAccepted"}));
  CHECK(st.keys.count({"projects", "/w", "newProjectKey"}));
  // Something other than an object where claude expects one is the key itself.
  CHECK(P(S::State, R"({"projects": "x"})").keys.count({"projects"}));
  CHECK(P(S::State, R"({"projects": {"/w": [1]}})").keys.count({"projects", "/w"}));
  // The restore: the unknown key and the trust flag go, the inert changes stay.
  auto before = P(S::State, R"({"numStartups": 1, "projects": {"/w": {"lastCost": 0}}})");
  auto out = restore_claude_keys(S::State, before, R"({"numStartups": 4, "somethingNew": 1, "projects": {"/w": {"lastCost": 2,
    "hasTrustDialogAccepted": true}}})");
  REQUIRE(out);
  auto j = J(*out);
  CHECK(j["numStartups"] == 4);
  CHECK_FALSE(j.contains("somethingNew"));
  CHECK(j["projects"]["/w"]["lastCost"] == 2);
  CHECK_FALSE(j["projects"]["/w"].contains("hasTrustDialogAccepted"));
  auto out2 = restore_claude_keys(S::State, P(S::State, R"({"projects": {"/w": {"mcpServers": {"a": {}}}}})"),
                                  R"({"projects": "gone"})");
  REQUIRE(out2);
  CHECK(J(*out2)["projects"]["/w"]["mcpServers"].contains("a"));
}

TEST_CASE("claude keys: the paths a command names, ~ and the project expanded", "[audit][claude]") {
  CHECK(claude_command_paths("~/.claude/statusline.sh --x", "/h", "/w") == std::vector<std::string>{"/h/.claude/statusline.sh"});
  CHECK(claude_command_paths("bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/f.sh", "/h", "/w") ==
        std::vector<std::string>{"/w/.claude/hooks/f.sh"});
  CHECK(claude_command_paths("${HOME}/bin/x ./y.sh .claude/z.py plain https://a/b -o/x", "/h", "/w") ==
        std::vector<std::string>{"/h/bin/x", "/w/y.sh", "/w/.claude/z.py"});
  // Without home and project (managed settings): absolute words only.
  CHECK(claude_command_paths("~/x ./y /opt/z") == std::vector<std::string>{"/opt/z"});
}

TEST_CASE("claude projection: only the code-bearing keys, per project in ~/.claude.json", "[audit][claude]") {
  auto p = P(S::Settings, R"({"model": "opus", "hooks": {"A": []}, "env": {"X": "1"}})");
  CHECK(p.parsed);
  CHECK(p.keys.size() == 2);
  CHECK(p.keys.count({"hooks"}));
  auto st = P(S::State, R"({"numStartups": 3, "mcpServers": {}, "projects": {"/w.x": {"mcpServers": {"a": {}},
    "history": [1], "enableAllProjectMcpServers": true}}})");
  CHECK(st.keys.size() == 2);  // the empty top-level mcpServers is inert: no key
  CHECK(st.keys.count({"projects", "/w.x", "mcpServers"}));
  CHECK(key_name({"projects", "/w.x", "mcpServers"}) == "projects./w.x.mcpServers");
  CHECK_FALSE(project_claude(S::Settings, std::nullopt).exists);
  auto bad = P(S::Settings, "{\"hooks\": ");
  CHECK(bad.exists);
  CHECK_FALSE(bad.parsed);
}

TEST_CASE("claude diff: new, changed and removed keys; non-code changes are none", "[audit][claude]") {
  auto before = P(S::Settings, R"({"model": "a", "statusLine": {"command": "x"}, "permissions": {"deny": ["Bash"]}})");
  CHECK(claude_changes(before, P(S::Settings, R"({"model": "b", "statusLine": {"command": "x"}, "permissions": {"deny": ["Bash"]}})"))
            .empty());
  auto ch = claude_changes(before, P(S::Settings, R"({"hooks": {"SessionStart": []}, "statusLine": {"command": "y"}})"));
  REQUIRE(ch.size() == 3);
  CHECK(ch[0].rfind("hooks: added", 0) == 0);
  CHECK(ch[1].rfind("statusLine: changed to", 0) == 0);
  CHECK(ch[2] == "permissions: removed");  // a removed deny rule is a loosening
  // A removed file runs nothing; a file that does not parse strictly is a finding, whatever the
  // start had (the caller compares the texts first: an untouched file never gets here).
  CHECK(claude_changes(before, project_claude(S::Settings, std::nullopt)).empty());
  CHECK(claude_changes(before, P(S::Settings, "{")).size() == 1);
  CHECK(claude_changes(P(S::Settings, "{"), P(S::Settings, "{x")).size() == 1);
  const auto fresh = claude_changes(project_claude(S::Settings, std::nullopt), P(S::Settings, "kept"));
  REQUIRE(fresh.size() == 1);
  CHECK(fresh[0].find("not strict JSON") != std::string::npos);
  // What a lenient reader would read otherwise: a duplicate key, a comment, a lone surrogate.
  for (const char* t : {R"({"hooks": {}, "hooks": {"Stop": []}})", "{\"model\": \"a\"} // c", "{\"model\": \"\\ud800\"}"})
    CHECK(claude_changes(before, P(S::Settings, t)).size() == 1);
}

TEST_CASE("claude restore: code-bearing keys back to the start, every other change kept", "[audit][claude]") {
  auto before = P(S::Settings, R"({"model": "a", "statusLine": {"command": "mine"}, "permissions": {"deny": ["Bash"]}})");
  auto out = restore_claude_keys(S::Settings, before,
                                 R"({"model": "b", "statusLine": {"command": "evil"}, "hooks": {"SessionStart": []},
                                     "env": {"NODE_OPTIONS": "--require /tmp/x"}, "theme": "dark"})");
  REQUIRE(out);
  auto j = J(*out);
  CHECK(j["model"] == "b");      // the agent's (or claude's) own choice stays
  CHECK(j["theme"] == "dark");
  CHECK(j["statusLine"]["command"] == "mine");
  CHECK_FALSE(j.contains("hooks"));
  CHECK_FALSE(j.contains("env"));
  CHECK(j["permissions"]["deny"][0] == "Bash");  // removed by the agent: put back
  // ~/.claude.json: per project, and the rest (claude's constant rewrites) untouched.
  auto sb = P(S::State, R"({"projects": {"/w": {"mcpServers": {}, "history": []}}})");
  auto so = restore_claude_keys(S::State, sb, R"({"numStartups": 9, "mcpServers": {"x": {"command": "sh"}},
    "projects": {"/w": {"mcpServers": {"y": {"command": "sh"}}, "history": [1]}, "/v": {"mcpServers": {"z": {}}}}})");
  REQUIRE(so);
  auto s = J(*so);
  CHECK(s["numStartups"] == 9);
  CHECK_FALSE(s.contains("mcpServers"));
  CHECK(s["projects"]["/w"]["mcpServers"].empty());
  CHECK(s["projects"]["/w"]["history"][0] == 1);
  CHECK_FALSE(s["projects"]["/v"].contains("mcpServers"));
  // The agent put something else where the user's servers were: they come back all the same.
  auto sp = restore_claude_keys(S::State, P(S::State, R"({"projects": {"/w": {"mcpServers": {"mine": {}}}}})"),
                                R"({"projects": 1, "numStartups": 2})");
  REQUIRE(sp);
  CHECK(J(*sp) == J(R"({"projects": {"/w": {"mcpServers": {"mine": {}}}}, "numStartups": 2})"));
  // claude's own defaults for a new project entry are no change, and are left as they are.
  auto d0 = P(S::State, R"({"projects": {}})");
  auto d1 = R"({"projects": {"/workspaces/w": {"mcpServers": {}, "allowedTools": [], "enabledMcpjsonServers": [],
    "enableAllProjectMcpServers": false, "history": []}}})";
  CHECK(claude_changes(d0, P(S::State, d1)).empty());
  CHECK(J(*restore_claude_keys(S::State, d0, d1)) == J(d1));
  // Not JSON at the end: nothing to merge.
  CHECK_FALSE(restore_claude_keys(S::Settings, before, "{\"hooks\":"));
}

TEST_CASE("claude clean text: malformed at the start or at the end loses nothing", "[audit][claude]") {
  std::string how;
  // Malformed at the end, fine at the start: the start's text whole.
  const std::string start = R"({"model": "a"})";
  auto t = claude_clean_text(S::Settings, start, "{\"hooks\": {", &how);
  REQUIRE(t);
  CHECK(*t == start);
  CHECK(how.find("as it was at the start") != std::string::npos);
  // Malformed at the start: the agent's code keys go, the rest of the agent's text stays.
  t = claude_clean_text(S::Settings, std::string("{oops"), R"({"model": "b", "apiKeyHelper": "/tmp/x"})", &how);
  REQUIRE(t);
  CHECK(J(*t) == J(R"({"model": "b"})"));
  // None at the start: likewise.
  t = claude_clean_text(S::Settings, std::nullopt, R"({"statusLine": {"command": "x"}, "model": "c"})", &how);
  REQUIRE(t);
  CHECK(J(*t) == J(R"({"model": "c"})"));
  // Malformed at both ends: the start's text back as it was (the user's, whatever it holds).
  t = claude_clean_text(S::Settings, std::string("{oops"), "{worse", &how);
  REQUIRE(t);
  CHECK(*t == "{oops");
  // Nothing at the start and malformed at the end: nothing to write (the aside copy keeps it).
  CHECK_FALSE(claude_clean_text(S::Settings, std::nullopt, "{worse", &how));
}

TEST_CASE("claude report: what changed, what was done, the undo line", "[audit][claude]") {
  Finding f;
  f.path = "/h/.claude/settings.json";
  f.details = {"hooks: added {}"};
  f.act = Act::Rewrite;
  f.claude = S::Settings;
  Applied a;
  a.aside = "/h/.claude/settings.json.blaude-audit-X";
  a.rewritten = true;
  a.how = "its code-bearing keys set back";
  auto text = report_text({f}, {a}, {}, {});
  CHECK(text.find("Claude Code runs") != std::string::npos);
  CHECK(text.find("found: hooks: added {}") != std::string::npos);
  CHECK(text.find("undo: mv -f '/h/.claude/settings.json.blaude-audit-X' '/h/.claude/settings.json'") != std::string::npos);
  CHECK(text.find("git repositories") == std::string::npos);
}

// Run by tests/integration/test_audit_claude_key_table.sh with the keys the installed Claude
// Code carries (tests/integration/tools/claude_keys.py): every one must be classified, so that a
// newer claude's key is looked at before it is taken as code (and its changes undone) or as inert.
TEST_CASE("claude key table: every key of the installed claude is classified", "[.claude_installed]") {
  const char* file = std::getenv("BLAUDE_CLAUDE_KEYS");
  REQUIRE(file);
  std::ifstream in(file);
  REQUIRE(in.good());
  std::string scope, key, unclassified;
  int n = 0;
  while (in >> scope >> key) {
    ++n;
    const auto s = scope == "settings" ? ClaudeKeyScope::Settings
                   : scope == "state"  ? ClaudeKeyScope::State
                                       : ClaudeKeyScope::ProjectState;
    if (!claude_key_class(s, key)) unclassified += " " + scope + ":" + key;
  }
  INFO("keys read: " << n);
  CHECK(n > 0);
  CHECK(unclassified == "");
}

TEST_CASE("claude's project names: .claude and .mcp.json, in any ASCII case, nothing else", "[audit][claude]") {
  for (const char* n : {".claude", ".mcp.json", ".CLAUDE", ".Claude", ".MCP.JSON"}) CHECK(claude_code_project_name(n));
  for (const char* n : {"claude", ".claude-plugin", ".claude.json", "mcp.json", ".mcp.json.bak", "", ".clau"})
    CHECK_FALSE(claude_code_project_name(n));
}
