// Claude Code's settings keys that run code: a program claude starts on its own (hooks, the
// status line, credential helpers, MCP servers, plugins) or a setting that lets code run without
// asking (permissions, env). The one list blaude keeps of them: the planner reads it for the
// programs managed settings name (managed_paths.hpp) and for the scripts user and project
// settings name (read-only in the sandbox), the post-session audit for the keys it watches in
// the files the sandbox can write (audit/claude_files.hpp). Pure.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace blaude {

// The command strings of one settings document: every `command` under `hooks` (at any depth),
// statusLine.command, subagentStatusLine.command, fileSuggestion.command, apiKeyHelper,
// awsCredentialExport, awsAuthRefresh, gcpAuthRefresh, otelHeadersHelper, proxyAuthHelper,
// policyHelper.path, sandbox.{bwrapPath,socatPath,ripgrep.command}. Nothing else.
std::vector<std::string> claude_setting_commands(const nlohmann::json& doc);

// The top-level keys of a settings file (user, project, local) whose value runs code on the
// host or lets it run without a question: the first key of every command above, and env,
// permissions, hooks switches, plugins and marketplaces, MCP server approvals.
const std::vector<std::string>& claude_code_setting_keys();

// The same for ~/.claude.json (claude's state file, rewritten by every claude process): the
// keys at the top and in each projects.<path> entry that start MCP servers or approve them.
const std::vector<std::string>& claude_code_state_keys();

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
