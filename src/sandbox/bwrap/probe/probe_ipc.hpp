// The probe's host-IPC part: Landlock's ABI, whether bwrap is setuid, whether blaude can make
// its own overlays (only asked when bwrap cannot), the user's tmux socket dir, blaude's own
// config dir, the seed's /tmp socket names whatever their kind, and gpgconf's dirs under --git.
#pragma once
#include <sys/stat.h>

#include <string>
#include <vector>

#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::sandbox::bwrap {

// Fills f.ipc, f.tmp_socket_dirs, f.tmp_socket_files and the PathFacts the planner asks about
// for them (gpg's sockets and files, the tmux and config dirs).
void probe_ipc(HostFacts& f, const SandboxRequest& req);

// ~/.config entries that run code at login / when an app starts, pinned read-only when
// ~/.config has to stay host-writable (no overlay at all). git and blaude are handled apart.
extern const std::vector<std::string> kConfigLoginDirs;  // pinned even when missing
extern const std::vector<std::string> kConfigAppDirs;    // pinned when present

// blaude's own dirs, what it reads at start to decide protections or writes by path: the
// config dir (user policy, trust ledger), the cache dir (bwrap's feature cache), the state dir
// (the log). Each is a guard of every sandbox: never writable from inside, in any mode.
struct OwnDir {
  std::string path;  // as blaude uses it (f.ipc.config_dir, ...)
  const char* why;
};
std::vector<OwnDir> own_dirs(const HostFacts& f);

// Where one of them is on the host, canonical ("" when neither it nor its parent exists as a
// dir): what the planner guards. Pure over f.paths.
std::string own_dir_host(const HostFacts& f, const std::string& dir);
// The canonical ~/.config ("" when it is no dir). Pure over f.paths.
std::string dot_config_host(const HostFacts& f);

// The ~/.config entries overlayfs cannot copy up inside the sandbox (IpcFacts::config_unmapped).
// The kernel checks, before any copy-up, that the lower entry's owner and group both have a
// mapping in the caller's user namespace (fs/overlayfs/copy_up.c ovl_copy_up_one; commit
// 4f11ada10d0a "ovl: fail on invalid uid/gid mapping at copy up", Linux 6.2 and stable), and refuses
// with EOVERFLOW otherwise; an unprivileged user namespace maps only the user's own uid and gid.
// So a write to such a file, a new entry in such a dir (or anywhere below it: its parents are
// copied up first), a chmod or a rename fails inside with "Value too large for defined data
// type", while reads and listings work. Bounds: kConfigScanEntries entries looked at (breadth
// first, names sorted), kConfigUnmappedMax kept (each is a mount), the rest counted.
inline constexpr size_t kConfigScanEntries = 2048;
inline constexpr size_t kConfigUnmappedMax = 32;
// Walks the canonical dir `root` (not following links; ~/.config's own git and blaude are
// skipped, both read-only anyway) for dirs and regular files not owned by uid:gid, topmost only;
// not another user's file that neither its group nor others may write (a write is refused with
// EACCES before any copy-up, as on the host; removing it copies nothing up).
void scan_config_unmapped(IpcFacts& ipc, const std::string& root, uid_t uid, gid_t gid,
                          size_t max_entries = kConfigScanEntries, size_t max_kept = kConfigUnmappedMax);
// What the one-time marker holds for that list: one shown() line per entry, with its ids.
std::string config_unmapped_text(const std::vector<ConfigUnmapped>& v, size_t more);

// After the workspace scan: the identities (f.ws.ids) the protect layout checks blaude's own
// config dir and the ~/.config fallback pins against.
void identify_ipc_guards(HostFacts& f);

// The seed's list of /tmp IPC names (dirs, sockets or files alike).
bool is_tmp_ipc_name(const std::string& name);

// One entry of a listing of /tmp, as getdents gave it.
struct TmpEntry {
  std::string name;
  unsigned long long ino;
  unsigned char type;
};
// The seed-named entries of one listing `all` of the dir `tmp_fd` (/tmp; `ts` its stat), each
// stat'ed at its name: into f.tmp_socket_dirs / files / links and f.tmp_ids. A name that shows
// another object than the one listed goes to f.tmp_changed (the listing is stale), unless
// `last` and that object is one the shadows hide (not a symlink, not a regular file): then it is
// taken with the object it shows (probe_ipc.cpp's scan_tmp says why).
void scan_tmp_names(HostFacts& f, int tmp_fd, const struct stat& ts, const std::vector<TmpEntry>& all, bool last);
// The entries of the dir `fd`, in one getdents64 call where `buf_size` holds them.
std::vector<TmpEntry> list_tmp(int fd, size_t buf_size = 1 << 20);

// The user's sockets: kUserSocketDepth levels, kUserSocketDirs dirs listed at most.
constexpr int kUserSocketDepth = 3;
constexpr int kUserSocketDirs = 256;
// The scan below the dir `root_fd` (/tmp, named `root`; a private dir in the unit tests) whose
// listing is `top`: into `out` (probe_ipc.cpp has the rules, and the order dirs are listed in).
void scan_user_sockets_at(UserSockets& out, uid_t uid, const std::string& cwd, const std::string& home,
                          const std::string& home_real, int root_fd, const std::string& root,
                          const std::vector<TmpEntry>& top, int max_dirs = kUserSocketDirs);

// The user's own sockets in /tmp down to 3 levels, and their dirs that hold sockets only
// (probe_ipc.cpp has the rules). Reads only and touches no HostFacts: with the workspace scan
// on its thread, the late path runs it while that scan runs (PendingScan::sockets).
UserSockets scan_user_sockets(uid_t uid, const std::string& cwd, const std::string& home, const std::string& home_real);
// Puts them in f (tmp_user_sockets, tmp_user_socket_dirs sorted; tmp_ids; the warning in
// probe_warnings) and clears f.tmp_user_sockets_pending.
void merge_user_sockets(HostFacts& f, UserSockets us);

}  // namespace blaude::sandbox::bwrap
