// What the audit knows about the repositories under its roots at one moment: the files git
// reads code-bearing configuration from, as values. Taken once before the sandbox starts and
// once after it is gone (walk.hpp); compared by diff.hpp.
#pragma once
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace blaude::audit {

inline constexpr const char* kClaudeWorktreesOnly = "+worktrees-only";

enum class Role {
  Config,   // a config file git reads: config, config.worktree, an included file
  Hook,     // a file in a hooks dir (<commondir>/hooks, core.hooksPath)
  Pointer,  // redirects git to a gitdir: a `.git` file or symlink, commondir
  // What a program git runs reads and turns into commands (common/git_runners.hpp): a gitdir's
  // rebase-merge/, rebase-apply/, sequencer/; the config files and dirs of the hook managers the
  // hooks run. Taken whole: a file by its digest, a dir by one digest over its tree.
  Runner,
};

enum class FileKind { File, Symlink, Other, Dir };

struct FileRecord {
  Role role = Role::Config;
  FileKind kind = FileKind::File;
  std::string content;  // Config, Pointer: the text git reads (through a symlink, as git does)
  std::string digest;   // Hook: sha256 (hex) of what git would run (through a symlink)
  std::string link;     // kind == Symlink: the link's text
  bool too_big = false; // content longer than kMaxContent (treated as unreadable)
  std::string target;   // Pointer: the gitdir it leads to ("" when git would reject it)
  std::string repo;     // the gitdir this belongs to, for the report
  unsigned mode = 0;    // permission bits (a hook made executable is a change)
  std::string reader;   // Runner: what reads it, for the report ("" otherwise; not compared)
  bool operator==(const FileRecord& o) const {
    return role == o.role && kind == o.kind && content == o.content && digest == o.digest && link == o.link &&
           too_big == o.too_big && target == o.target && mode == o.mode;
  }
};

inline constexpr size_t kMaxContent = 1 << 20;
inline constexpr size_t kMaxGitlinks = 1024;
// Claude Code's files: its state file keeps every project's history (megabytes). Larger is hostile.
inline constexpr size_t kMaxClaudeContent = size_t(64) << 20;

struct Snapshot {
  std::map<std::string, FileRecord> files;  // by absolute path
  std::vector<std::string> repos;           // gitdirs found (for the log)
  // Hooks dirs: a repo's own (<commondir>/hooks) and those core.hooksPath names (existing or
  // not). A hook under a hooksPath dir only matters if that hooksPath was there before the
  // session: a new hooksPath is itself removed, which leaves its hooks unreachable.
  std::set<std::string> own_hook_dirs, configured_hook_dirs;
  bool complete = true;                     // false: the walk ran out of time or depth
  std::vector<std::string> not_reached;     // where it stopped (a few paths)
  // Below where it stopped (deeper than its limit, or left when its time ran out), a quick pass
  // that only looks for names: each `.git` entry and bare-repository-shaped dir found there, not
  // read. A new one is moved aside (diff.hpp): what the audit did not check is made inert.
  std::set<std::string> unchecked;
  bool swept = true;                        // false: that pass ran out of time too
  // Every `.claude` and `.mcp.json` entry (any type) at any depth, the sweep's included, with
  // its identity (dev, inode: "d:i"; "" where it could not be had): Claude Code reads them
  // wherever it starts. Present at the start, the sandbox had them read-only; a new one (a new
  // path, or another object at the same path: a parent renamed away and the name made again) is
  // moved aside (diff.hpp). Nothing in them is read. A `.claude` dir holding only a `worktrees`
  // dir (`claude --worktree`'s, with at most Claude Code's empty `.cc-writes` beside it) has
  // kClaudeWorktreesOnly after its identity: nothing to move.
  std::map<std::string, std::string> claude_names;
  // Indexes (WalkInput::read_indexes) that name a nested repository git would enter outside its
  // work tree (an absolute path, a `..`), or that blaude cannot read whole: index path → why.
  // git itself never writes such an entry, yet `git status` enters what one names and reads that
  // repository's config: moved aside (diff.hpp).
  std::map<std::string, std::string> bad_indexes;
  // The nested repositories those indexes name that stay in their work tree (absolute paths;
  // at most kMaxGitlinks): where `git status` goes by itself, for a walk that did not get there.
  std::vector<std::string> gitlinks;
  // Every repository's index as stat gives it (gitdir → "ino:size:mtime:ctime"; the kernel sets
  // ctime, so an index with the same key was not written since). Taken by every walk.
  std::map<std::string, std::string> index_stats;
  size_t dirs = 0;                          // directories read
  double seconds = 0;                       // how long the walk took
};

}  // namespace blaude::audit
