// Everything the bubblewrap planner needs to know about the host, gathered once by probe().
// The planner reads only this struct, so tests build synthetic hosts by filling it by hand.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "common/host_env.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/bwrap/probe/workspace.hpp"
#include "sandbox/request.hpp"
#include "sandbox/bwrap/probe/worktree_git.hpp"

namespace blaude::sandbox::bwrap {

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

// A link found by the pre-scan, with its target resolved like `readlink -m` would.
struct LinkHit {
  std::string rel;
  std::string target;
};

// What the workspace walk found (any depth, see workspace_walk.hpp). Protected names other than
// git's are taken at depth 1..3 (the seed's rule), links at 1..4; repositories at any depth.
struct WorkspaceScan {
  std::vector<std::pair<std::string, PathFact>> hits;  // rel → fact, for protected names
  std::vector<LinkHit> links;
  GitScan git;                                         // where git reads code-bearing config from
  // lstat identity of every host path a protection may mount or pin (and of their parents and
  // ancestors): the protect step mounts nothing else.
  std::map<std::string, Identity> ids;
  size_t entries = 0;
  size_t dirs = 0;
  // The walk's `.git` entries and bare-shaped dirs in its own order: the audit's snapshot before
  // the session starts from them instead of walking the tree again (audit/walk.hpp PriorWalk).
  std::string root;
  std::vector<FoundGit> walk_found;
  bool truncated = false;      // the walk hit its time or entry limit
  std::string truncated_at;    // where
  std::vector<std::string> unreadable;
};

// A package linked into a node tool's global dir (`npm link`, `bun link`, `pnpm link -g`): MCP
// servers under development keep their login tokens in files at the package root. The root is
// bound read-only (at `mount`: the enclosing node_modules when it has one), the token files
// read-write, and only when lstat saw regular files (a planted symlink is never bound).
struct LinkedPackage {
  std::string label;  // the tool whose global dir linked it: "nvm", "fnm", "pnpm", "bun"
  std::string root;   // canonical dir holding package.json
  std::string mount;  // root, or its node_modules (or node_modules/@scope's node_modules) parent
  PathFact token_cache;       // <root>/.token-cache.json, lstat only
  PathFact selected_account;  // <root>/.selected-account.json, lstat only
};

// A directory holding a program that managed settings (/etc/claude-code) tell claude to run.
struct ManagedDir {
  std::string path;
  bool root_owned = false;  // owner 0 and not group/other-writable: safe to expose read-only
};

// The program blaude runs (claude, claudechic or the --exec command) as the host resolves it.
// Inside the sandbox it must be reachable at the same path (the seed: "the claude binary at its
// own path"); plan() mounts what is missing, e.g. an npm prefix or a custom PATH dir.
struct ExeFact {
  // One path met on the way from `found` to `real`, and its form with every parent dir's links
  // resolved (the last component is not followed): /bin/claude → /usr/bin/claude on merged /usr.
  struct Hop {
    std::string path;
    std::string canon;
  };
  std::string name;          // as given: "claude", "claudechic", the --exec word
  bool from_path = false;    // name has no '/': found by a lookup in the host PATH
  std::string found;         // the absolute path the host runs; "" when not found
  std::vector<Hop> hops;     // found, then each symlink's target, up to (excluding) real
  std::string real;          // canonical path of the executable file
  // The installed npm package holding it (the dir of package.json above real, when that dir
  // sits in a node_modules): a native claude.exe or a cli.js needs its package files.
  std::string package_root;
};

// One ~/.config entry overlayfs cannot copy up in the sandbox's user namespace.
struct ConfigUnmapped {
  std::string rel;  // below the canonical ~/.config
  uid_t uid = 0;
  gid_t gid = 0;
  bool dir = false;
};

// Host IPC and the confinement blaude can apply itself (probe_ipc.cpp).
struct IpcFacts {
  int landlock_abi = 0;           // 6+: abstract unix sockets and signals can be scoped
  bool bwrap_setuid = false;      // no_new_privs (Landlock) and blaude's userns would break it
  bool own_overlay = false;       // bwrap < 0.9: blaude can make its own overlays (probed then)
  std::string own_overlay_why;    // why not
  bool own_overlay_cached = false;  // the answer came from this boot's cache (overlay_cache.hpp)
  std::string own_overlay_cache;    // that cache file, when it was read or is to be written
  std::string tmux_dir;           // the user's tmux socket dir: ${TMUX_TMPDIR:-/tmp}/tmux-UID
  std::string config_dir;         // blaude's own: $XDG_CONFIG_HOME/blaude or ~/.config/blaude
  std::string cache_dir;          // blaude's own: ~/.cache/blaude (bwrap's feature cache, ...)
  std::string state_dir;          // blaude's own: $XDG_STATE_HOME/blaude (the log)
  std::map<std::string, std::string> gpg_dirs;  // `gpgconf --list-dirs` (only under --git)
  std::string gpg_problem;        // why gpgconf gave nothing
  // ~/.config entries whose owner or group the sandbox's user namespace does not map (anything
  // but the user's own uid and primary gid), relative to the canonical ~/.config, topmost only
  // (nothing below a listed dir), breadth first: overlayfs refuses to copy one up (EOVERFLOW),
  // so the plan binds them read-only on the overlay (scan_config_unmapped). Only looked for where
  // ~/.config is an overlay (bwrap 0.9+ or blaude's own).
  std::vector<ConfigUnmapped> config_unmapped;
  size_t config_unmapped_more = 0;     // found past kConfigUnmappedMax: not bound, counted
  bool config_unmapped_truncated = false;  // the scan stopped at kConfigScanEntries
  bool config_unmapped_told = false;   // the marker says this very list was reported before
  std::string config_unmapped_marker;  // ~/.cache/blaude/config-unmapped-UID
};

// The user's own sockets anywhere in /tmp down to 3 levels (probe_ipc.cpp scan_user_sockets):
// what HostFacts keeps in tmp_user_sockets, tmp_user_socket_dirs and tmp_ids, and the warning
// when the scan stopped at its bound.
struct UserSockets {
  std::vector<std::string> sockets, dirs;
  std::map<std::string, Identity> ids;
  std::vector<std::string> warnings;
};

// The workspace scan on a thread of its own (HostFacts::probe with defer_scan). result() joins
// the thread (once: a process with a second thread alive pays for every page-table change with
// the other CPU's TLB flush) and gives the scan, or rethrows what it threw. The scan for the
// user's own sockets in /tmp, whose findings too only become the protect helper's mounts, is
// left to the same moment: sockets() runs it (once) on the caller's thread, while the workspace
// scan's thread may still run; null when there is none to run.
class PendingScan {
public:
  explicit PendingScan(std::function<WorkspaceScan()> scan, std::function<UserSockets()> sockets = {});
  ~PendingScan();
  PendingScan(const PendingScan&) = delete;
  PendingScan& operator=(const PendingScan&) = delete;
  const WorkspaceScan& result();
  const UserSockets* sockets();
  // The scan has ended (result() would not wait).
  bool done() const { return done_.load(std::memory_order_acquire); }

private:
  void join();
  std::once_flag joined_;
  WorkspaceScan scan_;
  std::function<UserSockets()> sockets_fn_;
  std::optional<UserSockets> sockets_;
  std::exception_ptr error_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

struct HostFacts {
  uid_t uid = 1000;
  gid_t gid = 1000;
  std::string user;       // login name, for USER
  std::string home;       // $HOME as the user knows it, normalised (no trailing slash)
  std::string home_real;  // its canonical path (a symlinked HOME resolves here)
  std::string cwd;        // the canonical working directory
  // What blaude's own working directory is (fstat of "."): the workspace the user is in, held by
  // the process. `cwd` is a path resolved from it, which a concurrent rename or symlink swap can
  // make lead elsewhere; the workspace bind is checked against this (plan/plan_verify.cpp).
  Identity cwd_id;
  bool stdio_tty = true;  // stdin and stdout are terminals (then blaude supervises a pty)

  std::string bwrap;                  // absolute path, "" when not installed
  bool overlay = false;               // bwrap accepts --overlay-src/--tmp-overlay (0.9+)
  bool overlay_probe_failed = false;  // could not ask bwrap; overlay assumed false for this run
  bool fd_binds = true;               // bwrap accepts --bind-fd/--ro-bind-fd (0.5+): held binds
  // Protections are mounted by blaude inside bwrap's namespaces (run/protect_gate.hpp): bwrap is not
  // setuid and the kernel has open_tree/move_mount/mount_setattr (5.12+). Else as bwrap options.
  bool inner_mounts = false;
  // The syscall filter can be built (this blaude has libseccomp) and is not turned off
  // (BLAUDE_SECCOMP=off, the attack tests' control).
  bool syscall_filter = false;
  std::vector<HostPrep> cache_writes;  // the refreshed feature cache, for the prepare step

  std::map<std::string, std::string> env;  // the host environment
  std::map<std::string, PathFact> paths;   // every absolute path the planner asks about

  std::vector<std::string> tmp_socket_dirs;  // existing /tmp/.X11-unix, /tmp/tmux-*, ... (sorted)
  // The same names when they are not dirs: a bare socket (dbus-launch's /tmp/dbus-XXXX), a FIFO or
  // a device; never a regular file (no IPC endpoint: not shadowed).
  std::vector<std::string> tmp_socket_files;
  // What the /tmp probe saw (probe_ipc.cpp), one consistent listing of a held /tmp descriptor:
  // the identity of each name above (the shadow is mounted on that object or not at all), the
  // seed names that were symlinks (not shadowed: reported), and the names whose object changed
  // between the listing and its stat in every listing into something no shadow hides (a
  // symlink, a regular file: a flip in flight), or "/tmp" when it could not be listed again:
  // the launch refuses (scan_tmp).
  std::map<std::string, Identity> tmp_ids;
  std::vector<std::string> tmp_socket_links;
  std::vector<std::string> tmp_changed;
  // The user's own sockets anywhere in /tmp down to 3 levels, whatever their names (a server
  // that trusts its own user: emacs, nvim, zellij, ...; probe_ipc.cpp), with their identities
  // in tmp_ids. Sorted.
  std::vector<std::string> tmp_user_sockets;
  // Those of the user's dirs among them that hold sockets and nothing else (one tmpfs each
  // instead of a mount per socket; plan/plan_ipc.cpp). Sorted.
  std::vector<std::string> tmp_user_socket_dirs;
  // The three above are not found yet: with the workspace scan on its thread, wait_for_scan()
  // finds and fills them in (PendingScan::sockets), and plan() leaves their shadows to
  // LaunchPlan::deferred. Per copy of the facts: a copy that waited does not fill in another.
  bool tmp_user_sockets_pending = false;
  IpcFacts ipc;
  std::string resolv_content;                // /etc/resolv.conf content when it is a symlink
  std::vector<std::string> opt_tool_dirs;    // /opt/<vendor>/<dir> holding a tool on PATH
  std::string nvm_dir;                       // $NVM_DIR or ~/.nvm
  std::string nvm_node_bin;                  // current node's bin dir under nvm_dir, "" if none
  std::string fnm_dir;                       // $FNM_DIR or ${XDG_DATA_HOME:-~/.local/share}/fnm
  std::string fnm_node_bin;                  // fnm's current node bin (under fnm_dir), "" if none
  std::string pnpm_home;                     // $PNPM_HOME or ${XDG_DATA_HOME:-~/.local/share}/pnpm
  std::string corepack_home;                 // $COREPACK_HOME or ${XDG_CACHE_HOME:-~/.cache}/node/corepack
  std::vector<LinkedPackage> linked_packages;
  std::vector<ManagedDir> managed_dirs;      // from /etc/claude-code managed settings, deduplicated
  std::vector<std::string> probe_warnings;   // what the probe could not read (passed on by plan())
  std::vector<PathFact> mounts;              // one per Options::mounts entry, same order
  std::vector<std::string> mount_paths;      // those entries made absolute
  WorkspaceScan ws;
  // The workspace scan still running (probe(..., defer_scan)): ws holds only the identities of
  // the workspace and its parents then (and what the rest of the probe identified); plan() leaves
  // every protection that depends on the scan to LaunchPlan::deferred (bwrap/deferred.hpp).
  std::shared_ptr<PendingScan> ws_pending;
  // The workspace as a linked worktree or a submodule, and its direct subdirectories that are
  // ones of a repository elsewhere: their repositories, checked (probe/worktree_git.hpp). Read
  // at probe time, never by the deferred scan: they choose binds in the argv.
  std::vector<WorktreeGit> ws_gits;
  ExeFact exe;     // the program that runs
  ExeFact claude;  // claude as well when exe is another program (--exec bash, --chic): the
                   // seed binds it at its own path whatever runs; name "" otherwise

  // host_facts_seed.cpp:
  std::string self_exe;           // blaude's own binary (the in-sandbox exec shim); "" if unusable
  std::string self_exe_problem;   // why the probe found it unusable ("" when it did not look, as in
                                  // unit tests' facts): the planner refuses, it never runs unshimmed
  std::string shim_exe;           // blaude-exec beside self_exe (canonical), "" if none: the shim
                                  // runs as its own program then (request.hpp, kSandboxShim)
  bool claude_mem_plugin = false; // the claude-mem plugin is installed (the seed's three checks)
  // host_facts_claude.cpp: the files the user's and the project's Claude settings name as
  // programs (hooks, statusLine, apiKeyHelper, ...: common/claude_keys.hpp) that exist, as
  // regular files, canonical and identified (ws.ids): kept read-only where the sandbox can write.
  std::vector<std::string> claude_scripts;
  std::string ssh_agent_dir;      // --ssh: the agent socket's dir when it is a dedicated one, else ""
  std::string kernel_osrelease;   // /proc/sys/kernel/osrelease (WSL detection)
  std::string proc_version;       // /proc/version (WSL detection)

  // The fact for an absolute path; Missing when the path was not probed.
  const PathFact& at(const std::string& path) const;
  std::string env_or(const std::string& key, const std::string& fallback = "") const;

  // Probes what the planner needs for this request on top of `host` (read once by the app
  // layer). Reads only: bwrap's feature cache under ~/.cache/blaude is read, and when bwrap
  // changed, the refreshed entry is listed in cache_writes for the prepare step to write.
  // The request's mount and grant paths are lstat'ed too.
  // defer_scan: the workspace scan (the walk at any depth, the repositories, their identities)
  // runs on its own thread and is waited for only by LaunchPlan::deferred's finish(), after
  // bwrap has started (it overlaps bwrap's own start); only where the protect helper mounts the
  // protections (inner_mounts) and they are on (not --tmp, not --allow-protected-writes).
  static HostFacts probe(const HostEnv& host, const SandboxRequest& req, bool defer_scan = false);
  // lstats the grants' paths too (the policy is read after the probe: a launch that cannot
  // start, for want of bwrap, asks no trust question).
  void probe_grants(const Grants& grants);
};
// `name` resolved against `path_env` like execvp would (a name with a '/' is taken as is when
// absolute), its symlinks followed one by one.
ExeFact probe_exe(const std::string& name, const std::string& path_env, const std::string& home_real);

// host_facts_seed.cpp. The claude-mem plugin, as the seed detects it: any of
// <config>/plugins/marketplaces/thedotmack (dir), <config>/plugins/cache/claude-mem (dir),
// <config>/plugins/cache/thedotmack/claude-mem (dir: the newer cache layout), or
// <config>/plugins/installed_plugins.json naming "claude-mem" (also "claude-mem@<marketplace>").
bool probe_claude_mem(const std::string& config_dir);
// The ssh-agent socket's directory when it is the agent's own: a real dir (not a link), owned by
// `uid`, no access for group or others, holding nothing but the socket, and not a shared place
// ($XDG_RUNTIME_DIR, /run/user/<uid>, /tmp, $HOME, /). Binding it (instead of the socket) keeps a
// restarted agent reachable; a shared dir would expose everything else in it. "" otherwise.
std::string probe_ssh_agent_dir(const std::string& sock, uid_t uid, const std::vector<std::string>& shared);
// Fills the fields above (config_dir: claude's, as claude_config_dir() gives it).
void probe_seed_extras(HostFacts& f, const std::string& config_dir);

// host_facts_claude.cpp. The settings files and their programs: common/claude_keys.hpp
// (claude_settings_files, claude_settings_scripts; the Seatbelt backend reads the same).
// After the workspace scan: claude_scripts, and the identities (ws.ids) of those and of
// every existing claude_code_entries() path, and their PathFacts.
void probe_claude_code(HostFacts& f, const std::string& config_dir, const std::string& workspace);

// Claude's config dir ($CLAUDE_CONFIG_DIR or ~/.claude), bound read-write.
std::string claude_config_dir(const HostFacts& facts);
// The D-Bus session socket --keyring binds (from DBUS_SESSION_BUS_ADDRESS, else /run/user/UID/bus).
std::string dbus_socket_path(const HostFacts& facts);

// The absolute paths probe() lstats for these options (pure; exposed for tests).
std::vector<std::string> paths_of_interest(const HostFacts& partial);

// Names the workspace walk prunes below the root (never the root itself, whatever its name).
bool is_noise_dir(const std::string& name);
// The protected file names (checked at every depth up to 3) and the .env* files are the
// workspace module's (sandbox/workspace/names.hpp), shared with Seatbelt.

}  // namespace blaude::sandbox::bwrap
