// What the installed bwrap can do, asked by behaviour (does it accept the options?), not by
// version string, and cached per bwrap binary under ~/.cache/blaude.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace blaude::sandbox {

struct BwrapFeatures {
  bool overlay = false;       // --overlay-src/--tmp-overlay (bubblewrap 0.9+)
  bool probe_failed = false;  // bwrap did not answer; nothing was cached
};

// The identity the cache is keyed by: path, device, inode, size, mtime and ctime of the binary,
// so an upgrade or a downgrade invalidates it.
std::string bwrap_identity(const std::string& bwrap);

// persist=false (--dry-run) reads the cache but never writes it.
BwrapFeatures bwrap_features(const std::string& bwrap, const std::string& home, uid_t uid, bool persist);

// Runs bwrap with these arguments, output discarded; its exit status (-1 if it could not run).
int run_bwrap_quietly(const std::string& bwrap, const std::vector<std::string>& args);

}  // namespace blaude::sandbox
