// What git's runners read: code that is not in a file git runs itself but in what a program git
// runs reads and turns into commands. Shared by the sandbox's scan (sandbox/workspace/repo_scan)
// and the audit's walk (audit/walk), so that both protect the same names. Pure.
//
//  In-progress operation state (per gitdir: a linked worktree's own gitdir, a submodule's):
//    rebase-merge/  `git rebase --continue` runs git-rebase-todo (exec lines, and every pick is a
//                   commit checked out on the host), reads done, strategy, strategy_opts,
//                   gpg_sign_opt, author-script, ...
//    rebase-apply/  `git am --continue` / `git rebase --continue` (apply backend): patches applied
//                   to the work tree, options
//    sequencer/     `git cherry-pick --continue`, `git revert --continue`: todo, opts (a config
//                   file of options: strategy, gpg-sign)
//  Each is taken whole: every file in it is read by git to decide what to run next, and moving
//  one file out would leave git with half an operation. Not here: MERGE_MSG, SQUASH_MSG,
//  BISECT_* and the like (text git shows or records, never runs).
//
//  Hook managers, recognised by what the hooks mention, with the files they read from the work
//  tree the hook runs in (its top level):
//    pre-commit      .pre-commit-config.yaml (.yml)
//    husky           .husky/ (v5+: the user's hooks, shell files without a shebang, run by
//                    .husky/_/h), .huskyrc* and husky.config.* (v4)
//    lefthook        lefthook*.{yml,yaml,toml,json,jsonc}, .lefthook*, the same under .config/,
//                    -local variants, and the script dirs .lefthook/ and .lefthook-local/
//    simple-git-hooks  .simple-git-hooks.{cjs,js,mjs,json}, simple-git-hooks.{...}
//    overcommit      .overcommit.yml, .git-hooks/ (its plugin dir)
//  package.json is not among them (its `simple-git-hooks` and husky v4's `husky` keys): it is
//  edited for every dependency, and npm runs its `scripts` anyway.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace blaude {

// The state dirs, by name, in a gitdir.
const std::vector<std::string>& git_state_dir_names();

enum class HookManager { PreCommit, Husky, Lefthook, SimpleGitHooks, Overcommit };

struct ManagerFile {
  std::string rel;  // relative to the work tree's top level
  bool dir = false; // a dir of scripts or configs, taken whole
};

std::string_view manager_name(HookManager m);
// The managers a hook's text runs (by the names they install or are invoked by). Over-matching
// is safe: it only protects a few more files.
std::vector<HookManager> hook_managers(std::string_view hook_text);
// The files a manager reads, in a fixed order.
const std::vector<ManagerFile>& manager_files(HookManager m);

}  // namespace blaude
