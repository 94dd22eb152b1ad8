// Claude Code's keys: where its settings name programs (hooks, the status line, credential
// helpers), and the table of which keys are inert and which can make claude run code (an
// allowlist: a key the table does not know is code-bearing). The planner reads the programs that
// managed, user and project settings name (read-only in the sandbox); the post-session audit
// keeps a session's changes to inert keys only (audit/claude_files.hpp). Pure.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace blaude {

// The command strings of one settings document: every `command` under `hooks` (at any depth),
// statusLine.command, subagentStatusLine.command, fileSuggestion.command, apiKeyHelper,
// awsCredentialExport, awsAuthRefresh, gcpAuthRefresh, otelHeadersHelper, proxyAuthHelper,
// policyHelper.path, sandbox.{bwrapPath,socatPath,ripgrep.command}. Nothing else.
std::vector<std::string> claude_setting_commands(const nlohmann::json& doc);

// Where a key of Claude Code's sits: the top of a settings file (user, project, local), the top
// of ~/.claude.json (claude's state file, rewritten by every claude process), or one of its
// projects.<path> entries.
enum class ClaudeKeyScope { Settings, State, ProjectState };
// Inert: changing it runs nothing, widens no permission and names no program, path, URL or
// instruction (a preference, a counter, a cache). Code: anything else claude reads at its next
// start that could make it run code or follow instructions.
enum class ClaudeKeyClass { Inert, Code };

// The table's class of one key (common/claude_key_table.cpp); nullopt for a key it does not know,
// which every caller treats as code-bearing.
std::optional<ClaudeKeyClass> claude_key_class(ClaudeKeyScope scope, std::string_view key);
// The allowlist: only a key the table knows to be inert.
bool claude_key_inert(ClaudeKeyScope scope, std::string_view key);

// The entries of Claude Code's config dir (~/.claude) that make the next claude on the host run
// code or follow instructions: its hooks, commands, skills, agents, workflows, routines, rules,
// output styles and plugins (dirs), a local install of claude itself, and its user memory and
// scheduled tasks (files). Both backends keep them read-only (or a write-discarding overlay),
// present or not; a file the sandbox creates there is the audit's (moved aside). Names relative
// to the config dir.
struct ClaudeCodeEntry {
  const char* name;
  bool dir;
};
const std::vector<ClaudeCodeEntry>& claude_code_entries();

// The names Claude Code reads in any directory it starts in, whatever the depth below the
// workspace: `.claude` (settings with hooks, commands, skills, agents) and `.mcp.json` (servers
// `claude -p` starts without asking). Both backends protect them at any depth; the audit moves
// aside a new one (audit/walk.hpp). ASCII case-insensitive.
bool claude_code_project_name(std::string_view name);
// The same names as written, for a lookup by name (a dir whose entries are not listed).
inline constexpr const char* kClaudeCodeProjectNames[] = {".claude", ".mcp.json"};

// The paths a command string names, absolute: whitespace-split, one pair of quotes stripped;
// a leading ~/, $HOME/ or ${HOME}/ is `home`, $CLAUDE_PROJECT_DIR/ or ${CLAUDE_PROJECT_DIR}/ is
// `project` (claude runs hooks there), and a relative word with a '/' (./x.sh, .claude/x.sh)
// is taken from `project` too. Normalised. With empty home and project, absolute words only.
std::vector<std::string> claude_command_paths(const std::string& command, const std::string& home = "",
                                              const std::string& project = "");

// The settings files whose programs are kept read-only (both backends): <config>/settings.json
// and, with a workspace, its .claude/settings.json and .claude/settings.local.json.
std::vector<std::string> claude_settings_files(const std::string& config_dir, const std::string& workspace);
// The absolute paths the program strings of one settings text name (~ and $HOME are `home`,
// $CLAUDE_PROJECT_DIR and relative words `workspace`). Malformed text names none. Pure.
std::vector<std::string> claude_settings_scripts(const std::string& text, const std::string& home,
                                                 const std::string& workspace);
// What both backends protect: the programs those settings files (claude_settings_files) name,
// each through its links to the file claude would run, only existing regular files, first-seen
// order without repeats. Reads the host.
std::vector<std::string> claude_settings_programs(const std::string& config_dir, const std::string& workspace,
                                                  const std::string& home);

}  // namespace blaude
