// The probe's host-IPC part: Landlock's ABI, whether bwrap is setuid, whether blaude can make
// its own overlays (only asked when bwrap cannot), the user's tmux socket dir, blaude's own
// config dir, the seed's /tmp socket names whatever their kind, and gpgconf's dirs under --git.
#pragma once
#include "sandbox/bwrap/host_facts.hpp"

namespace blaude::sandbox::bwrap {

// Fills f.ipc, f.tmp_socket_dirs, f.tmp_socket_files and the PathFacts the planner asks about
// for them (gpg's sockets and files, the tmux and config dirs).
void probe_ipc(HostFacts& f, const SandboxRequest& req);

// ~/.config entries that run code at login / when an app starts, pinned read-only when
// ~/.config has to stay host-writable (no overlay at all). git and blaude are handled apart.
extern const std::vector<std::string> kConfigLoginDirs;  // pinned even when missing
extern const std::vector<std::string> kConfigAppDirs;    // pinned when present

// The seed's list of /tmp IPC names (dirs, sockets or files alike).
bool is_tmp_ipc_name(const std::string& name);

}  // namespace blaude::sandbox::bwrap
