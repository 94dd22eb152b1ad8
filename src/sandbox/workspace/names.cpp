#include "sandbox/workspace/names.hpp"

#include "common/claude_keys.hpp"

namespace blaude::sandbox::workspace {

bool is_env_file_name(const std::string& name) {
  // Templates are committed examples, not secrets, and nothing runs them: the agent may edit
  // them (".env.example must work": templates hold no secrets and tools read them).
  for (const char* t : {".env.example", ".env.sample", ".env.template"})
    if (name == t) return false;
  return name.rfind(".env", 0) == 0;
}

const std::vector<std::string>& protected_file_names() {
  static const std::vector<std::string> names = {
      ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
      ".zlogin", ".gitconfig", ".gitmodules", ".ripgreprc", ".mcp.json",
      // The project policy: the agent must not widen its own grants (the trust gate would ask
      // again, but a user in a hurry says yes).
      ".blaude", ".xclaude",
      // Read by a host tool on its own, with commands in them: mise runs a config's [hooks] and
      // [env] _.source when the shell enters the dir, and trusts a config by its path (not its
      // content, unlike direnv's .envrc), so an edit to a trusted one runs at the next cd; a dev
      // container's initializeCommand runs on the host when the folder is reopened in it.
      // Dot names only: the walk lists dot names (workspace_walk.cpp), so mise's undotted
      // mise.toml is not covered yet (stated in docs/policy.md).
      ".mise.toml", ".mise.local.toml", ".devcontainer.json"};
  return names;
}

bool is_protected_dir_name(const std::string& name) {
  // Editors' project settings that name commands they run (tasks, language servers, a dev
  // container's initializeCommand, mise's .mise/config.toml).
  for (const char* d : {".vscode", ".idea", ".devcontainer", ".zed", ".helix", ".mise", ".claude"})
    if (name == d) return true;
  return false;
}

bool is_any_depth_name(const char* name) { return claude_code_project_name(name); }

}  // namespace blaude::sandbox::workspace
