// The post-session audit, as the app layer sequences it: a snapshot of the
// git repositories under every dir the sandbox can write, taken before the child starts; after
// the child is gone and the terminal restored, a second walk, the comparison, the neutralising
// and the report (stderr and the log). The sandbox cannot reach any of it: it runs in blaude,
// on the host, when the sandbox's processes are dead.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/journal.hpp"
#include "app/launch.hpp"
#include "app/live_audit.hpp"
#include "audit/claude_files.hpp"
#include "audit/diff.hpp"
#include "audit/snapshot.hpp"
#include "audit/walk.hpp"
#include "cli/options.hpp"
#include "common/host_env.hpp"
#include "common/unique_fd.hpp"
#include "sandbox/bwrap/probe/host_facts.hpp"

namespace blaude::app {

// One of Claude Code's files the sandbox can write, as it was at the start (claude_files.hpp).
// It is read beneath a dir held open from before the session (`anchor`, the deepest dir above it
// that the sandbox cannot rename), never through a symlink the start did not have.
struct WatchedClaude {
  std::string path;
  audit::ClaudeFile kind = audit::ClaudeFile::Settings;
  std::optional<std::string> text;  // nullopt: no such file (or none blaude could read)
  std::shared_ptr<UniqueFd> anchor;  // null: nothing is read (no dir to hold)
  std::string rel;                   // the path beneath `anchor`
  std::string link;  // the start had a symlink at the file itself (the user's): its text
};

struct AuditSession {
  bool enabled = false;
  // BLAUDE_TEST_AUDIT_DELAY_MS: the snapshot before the session starts this late (the tests'
  // way to show that nothing in the sandbox runs before it is done; it only delays).
  int test_delay_ms = 0;
  audit::WalkInput walk;
  audit::Snapshot before;
  std::vector<WatchedClaude> claude;
  // The start state of `claude`, outside every sandbox (app/journal.hpp); removed by audit_end.
  std::string journal_root;
  Journal journal;
  // The watcher during the session (live_audit.hpp), from the child's start to audit_end.
  // BLAUDE_LIVE_AUDIT=off: none (to measure the window it closes).
  bool live_off = false;
  // BLAUDE_TEST_LIVE_WALK_DEPTH: the watcher's walk stops this many levels down (the tests' way
  // to make it stop at a limit on a small tree); 0: the walk's own limit.
  int live_depth = 0;
  std::unique_ptr<LiveAudit> live;
  // The sessions running now that journaled their repositories' start: under their roots, their
  // start is this session's too (take_before), not what their agents have made since.
  std::vector<std::pair<audit::WalkInput, audit::Snapshot>> running_git;
};

// The roots: the plan's writable host dirs (the workspace, -m DIR:rw, write grants, ~/.claude),
// not /tmp itself. And Claude Code's files: the user's settings{,.local}.json, ~/.claude.json
// (and the one in $CLAUDE_CONFIG_DIR), the config dir's files of claude_code_entries()
// (CLAUDE.md, scheduled tasks), the workspace's .claude/settings{,.local}.json and .mcp.json.
// Off under --allow-protected-writes (the user turned the protections off).
// What a start found in the sessions dir (audit_orphans): the dir ("" and why, when there is
// none blaude can trust) and the journals of the sessions running now.
struct StartJournals {
  std::string root, why;
  std::vector<Journal> live;
};
AuditSession audit_begin(const HostEnv& host, const cli::Options& o, const Launch& l, StartJournals j);

// Reads the sessions dir once. Sessions that never finished (their journal left, its lock free):
// each audited against its start and its journal removed, before anything of this session is
// read. true when that changed a repository, which the launch's plan may have read (its
// identities): plan again then.
bool audit_orphans(const HostEnv& host, const cli::Options& o, const Launch& l, StartJournals& j);

// A deferred plan's (launch.plan.deferred) snapshot, from its scan, once the scan is done: called
// before anything in the sandbox can run (supervise's before_command). Before it the session
// audits only Claude's files.
void audit_before(AuditSession& s, const sandbox::bwrap::WorkspaceScan& ws);

// Starts the watcher during the session (live_audit.hpp) once the child runs: `session` is the
// process to end when the limit is reached. Nothing when the snapshot before is not taken.
void audit_live(AuditSession& s, pid_t session);

// Prints the report on stderr (nothing when there is nothing to say) and logs it.
void audit_end(AuditSession& s);

// The probe's walk of the workspace as the audit takes it: only a complete one.
std::optional<audit::PriorWalk> prior_walk(const sandbox::bwrap::WorkspaceScan& ws);

// Holds `path`'s anchor and reads it as it is now (the start's state of one watched file).
// `roots`: dirs whose own name the sandbox cannot change (the workspace, home, the writable
// mounts): the deepest one above `path` is held, and the rest is walked without symlinks; where
// the start already has a symlink on that way (the user's own layout) the file's dir as it
// resolves now is held instead.
WatchedClaude watch_claude(const std::string& path, audit::ClaudeFile kind, const std::vector<std::string>& roots);

// The findings for the watched files as they are now (claude_files.hpp): a changed code-bearing
// key; a file that is not strict JSON, too large, not a regular file or a new symlink (hostile
// whole); a directory on the way made a symlink (moved aside, so claude does not follow it).
std::vector<audit::Finding> claude_findings(const std::vector<WatchedClaude>& watched, const std::string& stamp);

// The Claude Code files the audit watches (pure).
std::vector<std::pair<std::string, audit::ClaudeFile>> claude_watched_files(const std::string& home,
                                                                          const std::string& config_dir_env,
                                                                          const std::string& workspace);

// The scripts the commands of the watched settings name (at most a few dozen) under one of the
// dirs the sandbox can write (`writable`, host paths): each is watched whole, existing or not (a
// command that names a missing file would run what the agent puts there).
std::vector<std::string> claude_watched_scripts(const std::vector<WatchedClaude>& settings, const std::string& home,
                                                const std::string& workspace, const std::vector<std::string>& writable);

// Roots from writable dirs: canonical, existing dirs, no "/tmp", none inside another. Pure but for
// the realpath/stat of each.
std::vector<std::string> audit_roots(const std::vector<std::string>& writable_dirs);

}  // namespace blaude::app
