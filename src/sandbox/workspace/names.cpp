#include "sandbox/workspace/names.hpp"

namespace blaude::sandbox::workspace {

bool is_env_file_name(const std::string& name) {
  // Templates are committed examples, not secrets, and nothing runs them: the agent may edit
  // them (issue 16: ".env.example must work").
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
      ".blaude", ".xclaude"};
  return names;
}

bool is_protected_dir_name(const std::string& name) { return name == ".vscode" || name == ".idea"; }

}  // namespace blaude::sandbox::workspace
