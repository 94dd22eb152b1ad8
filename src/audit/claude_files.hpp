// The audit's part for Claude Code's own files: the settings and state files the
// sandbox can write name programs that claude on the host runs on its own (hooks, the status
// line, credential helpers, MCP servers, plugins) or let code run without a question
// (permissions, env). What is watched is their code-bearing projection: every key the table of
// common/claude_keys.hpp does not know to be inert (an unknown key is code), not the whole file:
// claude rewrites ~/.claude.json all the time and keeps the model and other choices in
// settings.json, and those changes must stay. Pure.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::audit {

enum class ClaudeFile {
  Settings,  // settings.json, settings.local.json: every top-level key not known to be inert
  State,     // ~/.claude.json: the same at the top and in each projects.<path>
  Script,    // a file a command of the settings names at the start: its whole text
};

using KeyPath = std::vector<std::string>;

struct ClaudeProjection {
  bool exists = false;  // the file could be read (through a link, as claude reads it)
  bool parsed = false;  // and is a JSON object that passes strict_json_error (common/strict_json.hpp)
  std::string error;    // why not, when it exists and did not parse
  // Each code-bearing key there → its value, as JSON text; not the inert ones (null, false, "",
  // {}, []: claude writes such defaults itself, and they run nothing).
  std::map<KeyPath, std::string> keys;
  bool operator==(const ClaudeProjection&) const = default;
};

ClaudeProjection project_claude(ClaudeFile kind, const std::optional<std::string>& text);

// One line per difference ("hooks: added", "projects./w.mcpServers: changed", "is not valid JSON
// any more"); empty when nothing code-bearing changed. A removed file is none (nothing of it
// runs); a file that exists and does not parse strictly always is one (hostile: a reader other
// than ours may read it), new or not. A removed key is one (a deny rule, say).
std::vector<std::string> claude_changes(const ClaudeProjection& before, const ClaudeProjection& after);

// `after_text` with each code-bearing key set back to its value in `before` (dropped where
// `before` had none, also when it did not parse: claude ran none of it); every other key as it
// is in `after_text`, in its order. nullopt when `after_text` is not a JSON object.
std::optional<std::string> restore_claude_keys(ClaudeFile kind, const ClaudeProjection& before,
                                               std::string_view after_text);

// The text to write in place of `after_text` (the agent's, moved aside): the restored one; else,
// when there was a file at the start, its whole text (a parser more lenient than ours must not
// get to read the agent's); else nullopt (nothing is written: the aside copy is all there is).
// `how` says which, for the report.
std::optional<std::string> claude_clean_text(ClaudeFile kind, const std::optional<std::string>& before_text,
                                             std::string_view after_text, std::string* how);

std::string key_name(const KeyPath& k);  // "projects./w.mcpServers"

}  // namespace blaude::audit
