// What the installed bwrap can do, asked by behaviour (does it accept the options?), not by
// version string, and cached per bwrap binary under ~/.cache/blaude.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/subprocess.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

struct BwrapFeatures {
  bool overlay = false;       // --overlay-src/--tmp-overlay (bubblewrap 0.9+)
  bool fd_binds = true;       // --bind-fd/--ro-bind-fd (bubblewrap 0.5+): the held binds (plan/held.hpp)
  bool probe_failed = false;  // bwrap did not answer; nothing is cached
  std::vector<HostPrep> cache_writes;  // the refreshed cache entry (and its dirs), when stale
};

// The identity the cache is keyed by: path, device, inode, size, mtime and ctime of the binary,
// so an upgrade or a downgrade invalidates it.
std::string bwrap_identity(const std::string& bwrap);

// blaude's cache dir: ~/.cache/blaude ("" when home is ""). A guard of every sandbox
// (plan/plan_ipc.cpp): never writable from inside, in any mode.
std::string own_cache_dir(const std::string& home);

// ~/.cache/blaude (or any cache dir) is used only when it is a dir of ours: a link or someone
// else's dir never is.
bool cache_dir_ok(const std::string& dir, uid_t uid);

// Whether the file holds the bytes `what` (non-empty); an unreadable, non-regular or huge file:
// true, so the caller asks bwrap. Reads in 16 KiB chunks, searching across their boundaries.
bool file_mentions(const std::string& file, std::string_view what);

// Reads the cache, or asks bwrap (a few ms) when it is stale; never writes: a stale cache's new
// entry is returned as a preparation. home "" (or not ours): no cache. Only answers whose
// forgery fails closed are taken from the cache: a cached "no overlays" is asked again (one
// bwrap run), since a planted one would put the next session in the fallback layout.
BwrapFeatures bwrap_features(const std::string& bwrap, const std::string& home, uid_t uid);

// Runs bwrap with these arguments and an empty environment, output discarded, at most
// timeout_ms; its exit status (-1 if it could not run or timed out).
int run_bwrap_quietly(const std::string& bwrap, const std::vector<std::string>& args, int timeout_ms = 5000);

// Whether bwrap can create the namespaces a sandbox needs, by making a minimal one: its exit
// status and output. Used by `blaude doctor` and to explain a launch that failed.
RunResult probe_userns(const std::string& bwrap);

// Whether the protect helper (run/protect_gate.hpp) can work with this bwrap on this kernel:
// bwrap is not setuid (a setuid bwrap's namespaces are not the user's to enter) and the kernel
// has openat2, open_tree, move_mount and mount_setattr (5.12+). Probes with invalid arguments
// only.
bool inner_mounts_work(const std::string& bwrap);

}  // namespace blaude::sandbox::bwrap
