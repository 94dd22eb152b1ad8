#include "common/claude_keys.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "common/paths.hpp"
#include "common/strict_json.hpp"

namespace blaude {

namespace {

using nlohmann::json;

// Where a settings document names a program: (key path, what it is). Each first key is
// code-bearing in the key table (claude_key_table.cpp).
struct CommandKey {
  std::vector<const char*> path;
};
const std::vector<CommandKey>& command_keys() {
  static const std::vector<CommandKey> keys = {
      {{"statusLine", "command"}},       {{"subagentStatusLine", "command"}}, {{"fileSuggestion", "command"}},
      {{"apiKeyHelper"}},                {{"awsCredentialExport"}},           {{"awsAuthRefresh"}},
      {{"gcpAuthRefresh"}},              {{"otelHeadersHelper"}},             {{"proxyAuthHelper"}},
      {{"policyHelper", "path"}},        {{"sandbox", "bwrapPath"}},          {{"sandbox", "socatPath"}},
      {{"sandbox", "ripgrep", "command"}},
  };
  return keys;
}

void push_string(std::vector<std::string>& out, const json* j) {
  if (j && j->is_string()) out.push_back(j->get<std::string>());
}

const json* member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// jq's `.. | objects | .command?` over the hooks tree.
void hook_commands(const json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    push_string(out, member(j, "command"));
    for (const auto& [k, v] : j.items()) hook_commands(v, out);
  } else if (j.is_array()) {
    for (const auto& v : j) hook_commands(v, out);
  }
}

bool starts(const std::string& s, const char* p, std::string& rest) {
  const std::string_view pv(p);
  if (s.compare(0, pv.size(), pv) != 0) return false;
  rest = s.substr(pv.size());
  return true;
}

}  // namespace

std::vector<std::string> claude_setting_commands(const json& doc) {
  std::vector<std::string> out;
  if (const json* h = member(doc, "hooks")) hook_commands(*h, out);
  for (const auto& k : command_keys()) {
    const json* cur = &doc;
    for (const char* part : k.path)
      if (cur && !(cur = member(*cur, part))) break;
    push_string(out, cur);
  }
  return out;
}

bool claude_code_project_name(std::string_view name) {
  // ASCII case folded: on a case-insensitive file system (macOS's default) claude opening
  // `.claude` finds a `.CLAUDE` too. On Linux such a name is inert, and treating it as claude's
  // costs nothing.
  auto is = [&](std::string_view want) {
    if (name.size() != want.size()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
      const char c = name[i] >= 'A' && name[i] <= 'Z' ? char(name[i] - 'A' + 'a') : name[i];
      if (c != want[i]) return false;
    }
    return true;
  };
  return is(".claude") || is(".mcp.json");
}

const std::vector<ClaudeCodeEntry>& claude_code_entries() {
  // Claude Code's own sandbox denies writes to the same set (its bundle lists them); plugins
  // carry hooks and MCP servers, the others are read at start or by a slash command.
  static const std::vector<ClaudeCodeEntry> e = {
      {"hooks", true},           {"commands", true},   {"skills", true},         {"agents", true},
      {"workflows", true},       {"routines", true},   {"rules", true},          {"output-styles", true},
      {"plugins", true},         {"local", true},      {"CLAUDE.md", false},     {"scheduled_tasks.json", false},
      {"launch.json", false},    {"daemon.json", false},
  };
  return e;
}

std::vector<std::string> claude_command_paths(const std::string& command, const std::string& home,
                                              const std::string& project) {
  std::vector<std::string> out;
  std::istringstream in(command);
  std::string tok, rest;
  while (in >> tok) {
    if (!tok.empty() && (tok.front() == '\'' || tok.front() == '"')) tok.erase(0, 1);
    if (!tok.empty() && (tok.back() == '\'' || tok.back() == '"')) tok.pop_back();
    // "$CLAUDE_PROJECT_DIR"/.claude/x.sh: the quote closes before the rest.
    if (auto q = tok.find_first_of("\"'"); q != std::string::npos) tok.erase(q, 1);
    if (tok.empty()) continue;
    std::string abs;
    if (tok.front() == '/') {
      abs = tok;
    } else if (!home.empty() && (starts(tok, "~/", rest) || starts(tok, "$HOME/", rest) || starts(tok, "${HOME}/", rest))) {
      abs = home + "/" + rest;
    } else if (!project.empty() &&
               (starts(tok, "$CLAUDE_PROJECT_DIR/", rest) || starts(tok, "${CLAUDE_PROJECT_DIR}/", rest))) {
      abs = project + "/" + rest;
    } else if (!project.empty() && tok.find('/') != std::string::npos && tok.front() != '$' && tok.front() != '-' &&
               tok.find("://") == std::string::npos) {
      abs = project + "/" + tok;
    }
    if (!abs.empty()) out.push_back(normalize(abs));
  }
  return out;
}

std::vector<std::string> claude_settings_files(const std::string& config_dir, const std::string& workspace) {
  std::vector<std::string> out{config_dir + "/settings.json"};
  if (!workspace.empty()) {
    out.push_back(workspace + "/.claude/settings.json");
    out.push_back(workspace + "/.claude/settings.local.json");
  }
  return out;
}

std::vector<std::string> claude_settings_scripts(const std::string& text, const std::string& home,
                                                 const std::string& workspace) {
  // Strictly (bounded depth, no duplicate key): hook_commands recurses on the document.
  std::vector<std::string> out;
  if (!strict_json_error(text).empty()) return out;
  auto doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return out;
  for (const auto& cmd : claude_setting_commands(doc))
    for (auto& p : claude_command_paths(cmd, home, workspace))
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
  return out;
}

std::vector<std::string> claude_settings_programs(const std::string& config_dir, const std::string& workspace,
                                                  const std::string& home) {
  std::vector<std::string> out;
  for (const auto& file : claude_settings_files(config_dir, workspace)) {
    auto text = read_small_file(file, 4u << 20);
    if (!text) continue;
    for (const auto& p : claude_settings_scripts(*text, home, workspace)) {
      const std::string real = canonical_path(p);
      struct stat st;
      if (real.empty() || ::lstat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (std::find(out.begin(), out.end(), real) == out.end()) out.push_back(real);
    }
  }
  return out;
}

}  // namespace blaude
