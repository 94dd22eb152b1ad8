// What a backend's pure planner decided: the whole argv (bwrap … -- cmd … on Linux), the data
// that reaches the sandbox through descriptors, the host preparations the launch needs, and
// what the user should be told first. The app layer prints it (--dry-run stops there), runs the
// preparations, then starts the argv under the PTY supervisor.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace blaude::sandbox {

namespace bwrap {
class DeferredProtect;  // bwrap/plan/deferred.hpp
struct MountOp;         // bwrap/plan/mount_op.hpp
}

// Content that must reach the sandbox through a file descriptor (bwrap --ro-bind-data FD PATH,
// --args FD, ...). The planner writes the placeholder token into argv; the launcher creates a
// memfd/pipe with the content and substitutes its number.
struct DataFd {
  std::string token;    // placeholder that appears in argv, e.g. "@fd:resolv"
  std::string content;
};

// A change on the host that the launch needs, listed by the planner and made by the app layer's
// prepare step, after every decision (so bad input, or --dry-run, changes nothing).
struct HostPrep {
  enum class Kind {
    MakeDir,      // mkdir `path` (mode), its parent must exist
    CreateFile,   // an empty file, O_CREAT|O_EXCL|O_NOFOLLOW (never through a planted link)
    ReplaceFile,  // atomic replace with `content`
  };
  Kind kind = Kind::MakeDir;
  std::string path;
  mode_t mode = 0700;
  std::string content;
  bool required = true;  // false: a failure is logged and the launch goes on (a cache file)
  std::string why;       // shown by --dry-run: "claude keeps its settings there"
};

// A mount blaude makes itself inside the sandbox's namespaces, after the backend's own mounts and
// before the command starts (bwrap: sandbox/bwrap/run/protect_gate.hpp). It is made on the very
// object whose identity the probe recorded, or not at all: nothing swapped in between the probe
// and the mount is ever mounted.
enum class InnerKind : unsigned char {
  ReadOnly,  // a read-only clone of the object on itself (file or dir, with what is mounted below)
  Pin,       // a writable clone on itself: the name can no longer be renamed or removed
  EmptyDir,  // a missing dir: created empty, then an empty read-only tmpfs on it
  // Host IPC shadows, on the very object the probe listed in /tmp (id: dev,
  // ino and type; dev = ino = 0: only its type, for a dir made by a host preparation):
  ShadowFile,  // /dev/null on a socket file: connect() is refused, the name cannot be moved
  ShadowDir,   // an empty writable tmpfs on a socket dir (.X11-unix, tmux-UID, ...)
  // The workspace at another alias (its host path inside the rw /tmp): a recursive
  // clone of the sandbox path `from` (the workspace's own bind, with every protection already
  // mounted in it) onto the object at `path`; both checked against id. One mount, the same view.
  Mirror,
  // The sandbox's /dev at `path`, as bwrap's --dev makes it (the same nodes, links, shm and
  // devpts), on the empty tmpfs bwrap mounted there; each device node cloned from the host's
  // /dev after checking it is that device (bwrap's --dev is six by-path binds that
  // each re-read the mount table, and a second user namespace, ~0.7 ms of every start).
  Dev,
  // A bind of bwrap's by path, made here instead (bwrap re-reads the mount table after
  // each, ~0.15 ms a bind): the host object `host`, opened under bwrap's old root with no symlink
  // on the way and checked against id (the probe's; dev = ino = 0: the type, and the launcher
  // records dev and ino before bwrap starts), cloned recursively onto `path` (created like bwrap
  // creates a mount point: on a tmpfs of bwrap's, nothing below it mounted by bwrap). if_gone:
  // bwrap's --bind-try, a source gone by then is passed over.
  Bind,
  RoBind,
};

// What the probe saw at a path (lstat).
struct Identity {
  unsigned long long dev = 0;
  unsigned long long ino = 0;
  unsigned type = 0;  // S_IFMT bits; 0 = missing
  bool operator==(const Identity&) const = default;
};

struct InnerMount {
  std::string path;  // absolute, normalized, in the sandbox ("/workspaces/x/.git/config")
  InnerKind kind = InnerKind::ReadOnly;
  Identity id;       // of the object; for EmptyDir, of its parent dir
  std::string host;  // the host path it shows (for --dry-run and the bwrap-option fallback)
  std::string why;   // what it protects, for --dry-run
  std::string from;  // Mirror: the sandbox path cloned (mounted earlier in the list)
  // ShadowFile only: a socket gone (or another object at the name) by the time the helper runs
  // is passed over, not a refusal. For the user's own sockets anywhere in /tmp (plan_ipc.cpp),
  // which servers make and remove at will: one removed in between needs no shadow, and one put
  // at the name since is a new socket, reachable like any socket made after start.
  bool if_same = false;
  // ShadowFile / ShadowDir over a seed-named /tmp entry (plan_ipc.cpp): gone by the time the
  // helper runs (removed, or renamed to a name the probe did not list: a new name, reachable
  // like a socket made after start) is passed over; another object of the same type at the name
  // (removed and made again) is shadowed instead, since hiding what is at the name is the point;
  // another type, or a symlink, still refuses the launch.
  bool if_gone = false;
};

// A bind in argv (`--bind SRC DST` / `--ro-bind SRC DST` at `index`) that the launcher turns
// into `--bind-fd N DST` / `--ro-bind-fd N DST` over a descriptor it holds: SRC opened with no
// symlink anywhere on its path and checked against what the probe saw. bwrap then checks, after
// mounting, that DST shows that very object ("Race condition binding dirfd" otherwise; 0.12 also
// refuses a symlink at DST). So nothing swapped in after the probe is mounted, at SRC or at DST:
// the bwrap-option form of "mount what was checked", where the protect helper cannot run.
struct HeldPath {
  size_t index = 0;  // of the op in argv
  std::string host;  // SRC: absolute, canonical when probed
  Identity id;       // what the probe saw; dev = ino = 0: only the type is known
  bool make_dir = false;  // SRC was missing: id is its parent's; the launcher creates it (0755)
};

// A mount bwrap makes by path (its source or its destination could be swapped for a symlink, or
// renamed, between blaude's probe and bwrap's mount): re-checked from inside the sandbox, after
// every mount and before the command starts, by blaude's exec shim (bwrap/run/mount_checks.hpp). A
// bind must show the very object the launcher found at the source with no symlink on the way
// (st_dev, st_ino: a bind keeps them), read-only when meant so; a tmpfs must be a tmpfs mounted
// on the destination itself (not on what a symlink there led to). A mismatch runs nothing.
struct MountCheck {
  enum class Kind : unsigned char { Bind, Tmpfs };
  Kind kind = Kind::Bind;
  std::string dst;   // in the sandbox, as in argv
  std::string host;  // Bind: the source
  bool ro = false;   // Bind: must be read-only inside
  Identity id;       // Bind: what the probe saw, when it recorded it (else only the launcher's walk)
};

// What the launcher does to the sandbox's first process itself, just before it execs bwrap,
// where bwrap has no option for it (bwrap/probe/confine.hpp carries it out). Not in the printed argv:
// --dry-run lists it as notes.
struct Confinement {
  bool fresh_keyring = false;          // the user's session keyring is not inherited
  uint64_t landlock_scopes = 0;        // LANDLOCK_SCOPE_* bits (abstract unix sockets, signals)
  std::vector<std::string> overlays;   // bwrap < 0.9: write-discarding overlays made by blaude
  // The own-overlay probe's cached answer (bwrap/probe/overlay_cache.hpp): removed when the overlays
  // fail, so the next start asks again ("" when the answer did not come from or go to a cache).
  std::string forget_on_failure;
  uid_t uid = 0;                       // blaude's own ids (its user namespace maps them 1:1)
  gid_t gid = 0;
  bool empty() const { return !fresh_keyring && !landlock_scopes && overlays.empty(); }
};

// The syscall filter bwrap loads into the sandbox (--seccomp FD) just before the command: what
// the planner decided; the table is bwrap/plan/syscall_table.hpp, the BPF program is compiled at
// launch (bwrap/run/syscall_filter.hpp).
// Set with bwrap's --setenv when nested sandboxes are on, for the exec shim (which unsets it):
// its own Landlock domain must then not be one that handles file access, because the kernel
// refuses every mount to a process in such a domain, a nested sandbox's too.
inline constexpr const char* kNestedSandboxEnv = "BLAUDE_NESTED_SANDBOX";

// Nested user namespaces refused by blaude itself, so that the exit line can name the program
// that wanted one (inside/userns_guard.hpp, bwrap/run/userns_watch.hpp): where the exec shim can
// make that filter (it knows this architecture's call numbers), bwrap's leaves the two rows out.
// bwrap's --setenv gives the shim the number of its end of the socket the listener goes back by.
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define BLAUDE_USERNS_BY_SHIM 1
#else
#define BLAUDE_USERNS_BY_SHIM 0
#endif
inline constexpr bool kUsernsByShim = BLAUDE_USERNS_BY_SHIM;
inline constexpr const char* kUsernsNotifyEnv = "BLAUDE_USERNS_NOTIFY";

struct SyscallFilter {
  bool on = false;
  bool nested = false;  // namespaces inside (nested sandboxes): the namespace and mount rows are lifted
  // unshare and clone with CLONE_NEWUSER are refused by the exec shim's filter and blaude
  // (kUsernsByShim), not by bwrap's: they are left out of its program.
  bool userns_by_shim = false;
};

struct LaunchPlan {
  std::vector<std::string> argv;
  std::vector<DataFd> data_fds;
  std::vector<HostPrep> preparations;
  Confinement confine;
  std::vector<std::string> writable_dirs;  // host paths the sandbox can write (for the audit)
  std::vector<std::string> notes;  // printed to stderr before the session starts
  std::vector<std::string> warnings;
  // Made by the launcher inside the sandbox, in this order, after every mount in argv.
  std::vector<InnerMount> inner_mounts;
  // bwrap, when the workspace scan was still running at plan time: what depends on it (more
  // inner mounts, warnings, notes), finished after bwrap's spawn (bwrap/plan/deferred.hpp). argv has
  // the gate options then, and inner_mounts is empty.
  std::shared_ptr<bwrap::DeferredProtect> deferred;
  // Binds the launcher makes by held descriptor (in argv they read as plain binds: --dry-run).
  std::vector<HeldPath> held;
  // By-path mounts the exec shim re-checks before the command runs (empty: none, or no shim).
  std::vector<MountCheck> checks;
  // Pins left out of the bwrap-option form (sandbox path, the mount below it that a bind there
  // would hide), each also warned about: --dry-run lists them among the protected paths.
  std::vector<std::pair<std::string, std::string>> unpinned;
  SyscallFilter syscalls;
  // Where in argv the "--" that ends bwrap's options stands, as the planner rendered it: the
  // launcher's own options (the mount checks' file, --seccomp) go before it. 0: no argv.
  size_t options_end = 0;
  // Whether argv makes /run/blaude already (a --dir there: the gate's, the held binds' marker's,
  // proxy mode's), so the launcher's files there need no dir op of their own.
  bool makes_run_dir = false;
  // The ops argv was rendered from (bwrap/plan/mount_op.hpp), the helper's among them: what
  // --dry-run prints (bwrap/plan/format.hpp).
  std::shared_ptr<const std::vector<bwrap::MountOp>> ops;
};

}  // namespace blaude::sandbox
