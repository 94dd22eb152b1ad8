// Finding the asciinema recorder that blaude runs under, from a snapshot of its ancestors.
// Pure: the snapshot and the environment are values; reading /proc is in snapshot.cpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "asciinema/procinfo.hpp"

namespace blaude::asciinema {

// Lowercase hex of FNV-1a-128 over `text`, without leading zeros (asciinema 3 formats the
// session id that way from the decimal pid of the recorder).
std::string fnv1a128_hex(std::string_view text);
// Whether an ASCIINEMA_SESSION value was derived from this pid (leading zeros ignored).
bool session_id_matches(std::string_view value, pid_t pid);

// asciinema 2 runs as `python3 /usr/bin/asciinema rec` (comm "asciinema" via the shebang) or
// `python3 -m asciinema rec` (comm "python3"); asciinema 3 is a binary named asciinema.
bool looks_like_asciinema(const ProcInfo& p);

struct RecorderEnv {
  std::optional<std::string> rec;      // ASCIINEMA_REC (v2, and v3 `rec`)
  std::optional<std::string> session;  // ASCIINEMA_SESSION (v3)
};

struct Snapshot {
  std::vector<ProcInfo> ancestors;    // blaude's parent first, up to pid 1
  std::optional<pid_t> leader_ppid;   // parent of the leader of blaude's session
};

struct Detection {
  std::optional<ProcInfo> recorder;
  std::optional<ProcInfo> parent;  // the recorder's parent, when in the snapshot
  std::string reason;              // why this recorder, or why none
};

// The nearest ancestor that is the recorder of blaude's terminal. It must be what the
// environment says (a v3 session id must hash its pid) and must be the parent of the leader of
// blaude's session: asciinema forks the recorded command onto a new pty as session leader, so a
// recorder further out (e.g. around a tmux client) is not the one relaying blaude's terminal.
Detection find_recorder(const Snapshot& snap, const RecorderEnv& env);

}  // namespace blaude::asciinema
