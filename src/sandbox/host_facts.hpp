// Everything the bubblewrap planner needs to know about the host, gathered once by probe().
// The planner reads only this struct, so tests build synthetic hosts by filling it by hand.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace blaude::sandbox {

enum class Kind { Missing, File, Dir, Symlink, Socket, Other };

// One path as lstat saw it, plus where it leads when followed. `kind` follows symlinks;
// `lkind` does not. Workspace paths are judged by lkind (the agent can plant links there);
// host-owned paths ($HOME tools, /etc) by kind.
struct PathFact {
  Kind lkind = Kind::Missing;
  Kind kind = Kind::Missing;
  std::string real;  // canonical path when it resolves, "" otherwise
  std::string link;  // raw link text when lkind == Symlink
};

// A git directory inside the workspace (top-level .git, a nested repo's .git, a submodule's
// gitdir under .git/modules). Paths are relative to the workspace root.
struct GitDir {
  std::string rel;          // e.g. ".git", "packages/app/.git", ".git/modules/lib"
  PathFact config;          // <rel>/config
  PathFact hooks;           // <rel>/hooks
  std::string hooks_path;   // core.hooksPath resolved to a workspace-relative path, "" if none/outside
  PathFact hooks_path_fact;
};

// A link found by the pre-scan, with its target resolved like `readlink -m` would.
struct LinkHit {
  std::string rel;
  std::string target;
};

// What the depth-limited workspace walk found. Protected names are at depth 1..3, links at 1..4.
struct WorkspaceScan {
  std::vector<std::pair<std::string, PathFact>> hits;  // rel → fact, for protected names
  std::vector<GitDir> gitdirs;
  std::vector<LinkHit> links;
};

struct HostFacts {
  uid_t uid = 1000;
  gid_t gid = 1000;
  std::string user;       // login name, for USER
  std::string home;       // $HOME as the user knows it, normalised (no trailing slash)
  std::string home_real;  // its canonical path (a symlinked HOME resolves here)
  std::string cwd;        // the canonical working directory
  bool stdio_tty = true;  // stdin and stdout are terminals (then blaude supervises a pty)

  std::string bwrap;                  // absolute path, "" when not installed
  bool overlay = false;               // bwrap accepts --overlay-src/--tmp-overlay (0.9+)
  bool overlay_probe_failed = false;  // could not ask bwrap; overlay assumed false for this run

  std::map<std::string, std::string> env;  // the host environment
  std::map<std::string, PathFact> paths;   // every absolute path the planner asks about

  std::vector<std::string> tmp_socket_dirs;  // existing /tmp/.X11-unix, /tmp/tmux-*, ... (sorted)
  std::string resolv_content;                // /etc/resolv.conf content when it is a symlink
  std::vector<std::string> opt_tool_dirs;    // /opt/<vendor>/<dir> holding a tool on PATH
  std::string nvm_dir;                       // $NVM_DIR or ~/.nvm
  std::string nvm_node_bin;                  // current node's bin dir under nvm_dir, "" if none
  std::vector<PathFact> mounts;              // one per Options::mounts entry, same order
  std::vector<std::string> mount_paths;      // those entries made absolute
  WorkspaceScan ws;

  // The fact for an absolute path; Missing when the path was not probed.
  const PathFact& at(const std::string& path) const;
  std::string env_or(const std::string& key, const std::string& fallback = "") const;

  // Probes the host (the only I/O of the sandbox module before launch). Reads bwrap's feature
  // cache under ~/.cache/blaude and refreshes it when bwrap changed (not under --dry-run).
  // extra_paths: more absolute paths to lstat, e.g. the policy's grant paths.
  static HostFacts probe(const cli::Options& opts, const std::vector<std::string>& extra_paths = {});
};

// The absolute paths probe() lstats for these options (pure; exposed for tests).
std::vector<std::string> paths_of_interest(const HostFacts& partial, const cli::Options& opts);

// Names the workspace walk prunes below the root (never the root itself, whatever its name).
bool is_noise_dir(const std::string& name);
// The protected file names checked at every depth up to 3.
const std::vector<std::string>& protected_file_names();

}  // namespace blaude::sandbox
