// The workspace names other than git's that run code or hold secrets on the host: the seed's
// depth-3 rule (both backends protect the same list). Pure.
#pragma once
#include <string>
#include <vector>

namespace blaude::sandbox::workspace {

// .env, .env.local, .envrc (direnv runs it on the host): files only; a venv dir named .env is not,
// nor the templates .env.example, .env.sample and .env.template.
bool is_env_file_name(const std::string& name);
// Shell rc files, .gitconfig/.gitmodules, .ripgreprc, .mcp.json, the policy files, mise's
// configs, .devcontainer.json.
const std::vector<std::string>& protected_file_names();
// Directories whose settings an editor or tool runs (.vscode, .idea, .devcontainer, .zed,
// .helix, .mise, .claude): protected as a whole.
bool is_protected_dir_name(const std::string& name);
// Reported by the walk at ANY depth, not only the depth-3 rule's: Claude Code's project names
// (claude_code_project_name, common/claude_keys.hpp).
bool is_any_depth_name(const char* name);

}  // namespace blaude::sandbox::workspace
