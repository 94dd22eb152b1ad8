// Claude Code's own files, read and touched on the host before launch:
//  - settings that disable bypass mode (permissions.disableBypassPermissionsMode = "disable"),
//    which would make --dangerously-skip-permissions fail: warn once, say who can change it;
//  - the onboarding flags in .claude.json, so the sandboxed claude does not stop at the
//    first-run screens (it cannot persist their answers from inside all sandboxes).
// Pure decisions over text; the file I/O is kept in the few *_file functions.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::app {

// --- bypass-mode blockers ---------------------------------------------------------------

inline constexpr const char* kManagedDir = "/etc/claude-code";

// The files claude reads settings from, in the order they are checked. managed_d_files: the
// *.json entries of /etc/claude-code/managed-settings.d (any order; sorted here).
std::vector<std::string> settings_files(const std::string& home, const std::string& config_dir_env,
                                        const std::string& workspace, bool tmp,
                                        std::vector<std::string> managed_d_files);

// Parses JSON text; true if permissions.disableBypassPermissionsMode == "disable". Malformed
// JSON is not a blocker (claude would ignore the file too).
bool blocks_bypass(std::string_view json_text);

bool is_managed(std::string_view path);  // under /etc/claude-code/: only an admin can change it

// The warning's lines for a blocking file.
std::vector<std::string> bypass_warning(const std::string& path);

// Host side: reads each file (missing/unreadable ones skipped) and returns the first blocker.
std::optional<std::string> find_bypass_blocker(const std::vector<std::string>& files);
// Lists /etc/claude-code/managed-settings.d/*.json (or dir) on the host.
std::vector<std::string> list_json_files(const std::string& dir);

// --- onboarding flags -----------------------------------------------------------------

struct OnboardingMerge {
  enum Kind { Unchanged, Updated, Malformed } kind = Unchanged;
  std::string text;  // the new file content when Updated
};

// Sets hasCompletedOnboarding and bypassPermissionsModeAccepted to true, keeping every other
// key and the key order. Text that is not a JSON object is Malformed (left alone).
OnboardingMerge merge_onboarding(std::string_view existing);
inline constexpr const char* kFreshOnboarding =
    "{\"hasCompletedOnboarding\": true, \"bypassPermissionsModeAccepted\": true}\n";

// The .claude.json files to update: ~/.claude.json, and $CLAUDE_CONFIG_DIR/.claude.json when
// that variable is set (to a different place).
std::vector<std::string> onboarding_files(const std::string& home, const std::string& config_dir_env);

// Host side: applies merge_onboarding to one file. Refuses a symlink, writes atomically (temp
// file in the same directory, fsync, rename) with mode 0600. Returns warning lines (empty when
// all went well or nothing was needed).
std::vector<std::string> ensure_onboarding_file(const std::string& path);

}  // namespace blaude::app

namespace blaude::app {

// --- conversations held under the seed's path -------------------------------------------

// Claude Code's key for a project directory: its name under <config>/projects (every character
// but A-Z, a-z, 0-9 as '-'; "/workspaces/app" -> "-workspaces-app"). "" for a path whose key
// Claude Code would shorten with a hash (over 200 characters): not guessed.
std::string claude_project_key(std::string_view dir);

// With the project at its host path `cwd`: when `claude_config_dir`/projects holds conversations
// under the seed's path `seed` (kept there, shared by every project of that directory name) and
// none under `cwd` yet, the lines that say how to reach them (escaped). Nothing is moved: that
// key may belong to another project of the same name. Empty otherwise. Reads two lstat()s.
std::vector<std::string> seed_history_notice(const std::string& claude_config_dir, const std::string& cwd,
                                             const std::string& seed);

}  // namespace blaude::app
