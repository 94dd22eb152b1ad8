// The sandbox's resource limits on the host (the values: common/limits.hpp). Two ways, the
// first that this host allows:
//   - a cgroup v2 leaf of its own, made beside blaude's cgroup in a parent the user may write
//     and that has the memory and pids controllers (or one of them: the other as below) (what systemd's user manager delegates:
//     a terminal's or `systemd-run --user --scope`'s cgroup sits in such a parent), with
//     memory.max, memory.swap.max = 0, pids.max and memory.oom.group = 1; bwrap's process
//     enters it before exec, so everything in the sandbox is in it. Reaching memory.max ends
//     the whole group (the kernel's OOM kill); reaching pids.max ends it too (blaude writes
//     cgroup.kill once pids.events counts a refused fork): a fork bomb does not stay at the
//     limit, spinning. After the session blaude reads memory.events / pids.events to say which
//     limit ended it, then removes the leaf.
//   - else RLIMIT_NPROC on bwrap's process, inherited by everything inside, at the count of the
//     user's tasks now plus pids_max. It is the kernel's per real uid: it bounds the account's
//     tasks as a whole, checked when something inside forks, so the sandbox gets pids_max more
//     than the account had at the start (fewer when the user starts more outside); the host's
//     own processes, which keep their own limit, can still fork. No memory rlimit: each one
//     counts address space, not use, and Claude Code (Bun's JavaScriptCore) starts with 3.3 GiB
//     of VmData (RLIMIT_DATA's measure) and more of VmSize (RLIMIT_AS's) while using ~200 MiB,
//     so a limit low enough to matter would break it; and none bounds the sum over processes.
//     blaude cannot tell afterwards that RLIMIT_NPROC was reached.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/limits.hpp"
#include "common/unique_fd.hpp"

namespace blaude::sandbox::bwrap {

enum class LimitKind { Off, Cgroup, Rlimit };

// Decided before anything starts (reads only).
struct LimitPlan {
  LimitKind kind = LimitKind::Rlimit;
  LimitSettings settings;
  std::string cgroup_parent;  // Cgroup: the delegated dir the leaf is made in
  bool cg_memory = false;     // Cgroup: which of the two controllers it has (at least one);
  bool cg_pids = false;       // without pids the rlimit stands in, without memory nothing does
  std::string no_cgroup;      // why not a cgroup, or why not the missing controller
};

// Where the limits can be enforced here. `proc_self_cgroup` and `mountinfo` are the texts of
// /proc/self/cgroup and /proc/self/mountinfo (read by the caller; unit tests pass their own);
// the candidate parent's files are read and its access checked on this host.
LimitPlan plan_limits(const LimitSettings& s, const std::string& proc_self_cgroup, const std::string& mountinfo);
LimitPlan plan_limits(const LimitSettings& s);  // this process's own

// The cgroup v2 dir of this process ("" when there is none), from those two texts.
std::string own_cgroup_dir(const std::string& proc_self_cgroup, const std::string& mountinfo);

// For the layers line, --debug and doctor: "cgroup v2 (memory 8 GiB, 4096 tasks)", ...
std::string describe_limits(const LimitPlan& p);

// The limits of one session, made before bwrap's fork. pre_exec() is for the forked child.
class SandboxLimits {
public:
  // Makes the leaf (Cgroup) or works out the rlimits. A leaf that cannot be made falls back to
  // the rlimits; *note then says why (for the log). Off: nullptr.
  static std::unique_ptr<SandboxLimits> start(const LimitPlan& p, std::string* note);
  ~SandboxLimits();
  SandboxLimits(const SandboxLimits&) = delete;
  SandboxLimits& operator=(const SandboxLimits&) = delete;

  LimitKind kind() const { return kind_; }
  const std::string& leaf() const { return leaf_; }
  // Once the child runs: watch pids.events (Cgroup only).
  void watch();
  // After the sandbox ended: the exit line when a limit ended it ("" otherwise). Ends whatever
  // is left in the leaf and removes it.
  std::string finish();

  // In the forked child only (pty::PreExec's contract: syscalls only): enters the leaf, or
  // sets the rlimits. 0, else an errno.
  int enter() const;

private:
  SandboxLimits() = default;
  LimitKind kind_ = LimitKind::Rlimit;
  bool cg_memory_ = false, cg_pids_ = false;
  LimitSettings s_;
  std::string leaf_;
  // The leaf's cgroup.procs, opened and written "0" by the child (which keeps no descriptor of
  // blaude's but the ones it execs with).
  std::string procs_path_;
  uint64_t nproc_ = 0;  // Rlimit: RLIMIT_NPROC
  std::atomic<bool> stop_{false};
  std::atomic<bool> killed_for_pids_{false};
  UniqueFd stop_rd_, stop_wr_;
  std::thread watcher_;
};

// pty::PreExec's signature over a SandboxLimits.
int enter_limits(const void* limits, int* step);

// "N" from a cgroup events file's "KEY N" line (memory.events, pids.events); 0 when absent.
uint64_t cgroup_event_count(const std::string& text, const std::string& key);

}  // namespace blaude::sandbox::bwrap
