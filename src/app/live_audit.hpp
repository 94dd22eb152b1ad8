// The audit while the session runs: git's configuration in the sandbox's writable dirs, made
// inert as it appears, not only at the end.
//
// Why: the host's git reads a repository's config before the session ends. A nested repository
// the agent adds to the workspace's index as a gitlink is entered by every `git status` the user
// (or a prompt that shows git state) runs in the workspace, and that repository's config may name
// a program git runs (core.fsmonitor). The repositories present at the start are read-only
// inside; a new one is the agent's, and only the audit can judge it.
//
// How: a thread beside the session. It watches every repository's gitdir known at the start
// (inotify: the index, the config) and the gitdirs of repositories that appear, and walks the
// roots again after such an event, and at least every half second (more rarely on a tree
// whose walk is slow). What the walk finds that the exit audit would rewrite in a config file
// (a key that runs a program or points git at code, audit/git_keys.hpp) is rewritten now, the
// original moved aside, exactly as the exit audit does it. A session that keeps putting such
// keys back is ended once kMaxRewrites rewrites were needed: a limit reached is a decision, and
// the decision is that the sandbox no longer runs. What it leaves to the exit audit: hooks,
// runner state, Claude Code's files (each needs the user to run something in a place the agent
// made), and anything in the window between a write and the walk that follows it (measured by
// tests/integration/test_escapes_fsmonitor_window.sh).
#pragma once
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/snapshot.hpp"
#include "audit/walk.hpp"

namespace blaude::app {

struct LiveConfig {
  audit::WalkInput walk;     // the exit audit's roots
  std::string stamp;         // names the moved-aside copies (a counter is added per check)
  pid_t session = -1;        // the process to SIGKILL when the limit is reached (bwrap: its children die with it)
  int max_rewrites = 8;      // rewrites before the session is ended
  double sweep_seconds = 0.5;  // the walk without an event, at least this often
};

class LiveAudit {
public:
  // Starts the thread; `before` must outlive the LiveAudit (the session's snapshot at the start).
  LiveAudit(const audit::Snapshot& before, LiveConfig cfg);
  ~LiveAudit();  // stop()
  LiveAudit(const LiveAudit&) = delete;
  LiveAudit& operator=(const LiveAudit&) = delete;

  // Stops and joins the thread (idempotent). After it, the members below are final.
  void stop();

  // What was done during the session, in order, for the exit report.
  std::vector<audit::Finding> findings;
  std::vector<audit::Applied> applied;
  bool ended_session = false;  // the limit was reached and the session killed
  size_t checks = 0;           // walks made
  double longest_walk_ms = 0;

private:
  void run();
  void check();
  const audit::Snapshot& before_;
  LiveConfig cfg_;
  int stop_r_ = -1, stop_w_ = -1;
  int session_fd_ = -1;  // a pidfd of cfg_.session (Linux 5.3+), else -1
  std::thread thread_;
  bool stopped_ = false;
  bool incomplete_said_ = false;
  struct Watches;
  std::unique_ptr<Watches> watches_;
};

// The findings of one live check that are acted on now: what git reads by itself when it enters
// a repository: a config file's rewrite or move (a changed or new config git reads), a pointer
// (`.git` file or link, commondir) that leads outside the audited dirs, moved aside. Only what is
// under `roots` (a config outside them is reached through such a pointer). Pure.
std::vector<audit::Finding> live_actionable(std::vector<audit::Finding> all, const std::vector<std::string>& roots);

}  // namespace blaude::app
