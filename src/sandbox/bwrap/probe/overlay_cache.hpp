// The answer of the own-overlay probe (confine.hpp's own_overlay_works: a forked child in a new
// user + mount namespace mounting a tmpfs and an overlay; ~3-5 ms per start, most of it the
// namespace's teardown), remembered per boot.
//
// Only "it works" is ever cached. Trusting it wrongly fails closed: the confine step mounts the
// overlays in bwrap's forked child before exec, and a refused mount stops the start there
// ("the sandbox did not start"), then the entry is dropped. "It does not work" is never cached:
// read back, it would let whoever wrote it make ~/.config host-writable (the fallback with
// pins), so a forged or stale negative entry cannot exist. A cache the sandbox could write is
// therefore harmless; it lives in ~/.cache/blaude (0700, ours, no link), which the sandbox does
// not see (its $HOME is a tmpfs).
#pragma once
#include <sys/types.h>

#include <string>

namespace blaude::sandbox::bwrap {

// What the answer depends on: this boot (the kernel, its sysctls and LSM policy as booted),
// the kernel release, the bwrap binary (own overlays are only asked for when it has none) and
// the user. Any field empty -> "" (no cache). Pure.
std::string own_overlay_key(const std::string& boot_id, const std::string& kernel_release,
                            const std::string& bwrap_identity, uid_t uid);

// The file's content for a positive answer under key. Pure.
std::string own_overlay_entry(const std::string& key);

// Whether content is a positive answer for exactly this key. Pure.
bool own_overlay_cached(const std::string& content, const std::string& key);

// The key of this host now (reads /proc/sys/kernel/random/boot_id, uname, stats bwrap).
std::string own_overlay_key_now(const std::string& bwrap, uid_t uid);

// Where the entry lives: ~/.cache/blaude/own-overlay-UID ("" when home is "").
std::string own_overlay_cache_file(const std::string& home, uid_t uid);

}  // namespace blaude::sandbox::bwrap
