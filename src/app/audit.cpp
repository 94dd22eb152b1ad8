#include "app/audit.hpp"

#include <limits.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ctime>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/report.hpp"
#include "common/claude_keys.hpp"
#include "common/file_io.hpp"
#include "common/paths.hpp"
#include "common/shown.hpp"
#include "common/strict_json.hpp"

namespace blaude::app {

namespace {

// The walk before the session holds up the child's start; the one after only blaude's exit.
constexpr double kBeforeSeconds = 3.0;
constexpr double kAfterSeconds = 10.0;
// The names-only pass below where a walk stopped (walk.hpp): short before (it delays the child),
// longer after.
constexpr double kBeforeSweepSeconds = 1.0;
constexpr double kAfterSweepSeconds = 5.0;

std::string utc_stamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

void log_text(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    spdlog::warn("audit: {}", text.substr(i, nl == std::string::npos ? std::string::npos : nl - i));
    i = nl == std::string::npos ? text.size() : nl + 1;
  }
}

// The largest file of each kind the audit reads; a larger one is hostile (moved aside).
size_t claude_cap(audit::ClaudeFile kind) {
  return kind == audit::ClaudeFile::State ? audit::kMaxClaudeContent : size_t(16) << 20;
}

// Claude's files as they are now, read the way watch_claude() read them at the start.
BeneathEntry read_now(const WatchedClaude& w) {
  BeneathEntry e;
  if (!w.anchor || !*w.anchor) {
    e.kind = BeneathEntry::Missing;
    return e;
  }
  return read_beneath(w.anchor->get(), w.rel, claude_cap(w.kind));
}

// The file through the symlink the start already had (the user's own: a dotfiles link), as
// claude reads it; non-blocking and regular files only, like every other read here.
std::optional<std::string> read_through_link(const WatchedClaude& w, const BeneathEntry& e) {
  if (!e.dir || !*e.dir) return std::nullopt;
  UniqueFd fd(::openat(e.dir->get(), e.name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || size_t(st.st_size) > claude_cap(w.kind))
    return std::nullopt;
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return out;
    out.append(buf, size_t(n));
    if (out.size() > claude_cap(w.kind)) return std::nullopt;
  }
}

std::string mib(size_t n) { return std::to_string((n + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

WatchedClaude watch_claude(const std::string& path, audit::ClaudeFile kind, const std::vector<std::string>& roots) {
  WatchedClaude w{path, kind, std::nullopt, nullptr, {}, {}};
  std::string root;
  for (const auto& r : roots)
    if (!r.empty() && is_under(path, r) && path != r && r.size() > root.size()) root = r;
  if (root.empty()) root = dirname_of(path);
  // `dir` as it resolves now, or the nearest dir above it that exists (a file made in a dir
  // that is new is still found, beneath a dir that is not).
  auto hold = [&](std::string dir, std::string rel) {
    std::string real = canonical_path(dir);
    while (real.empty() && dir.size() > 1) {
      const std::string up = dirname_of(dir);
      rel = dir.substr(up == "/" ? 1 : up.size() + 1) + "/" + rel;
      dir = up;
      real = canonical_path(dir);
    }
    UniqueFd fd = real.empty() ? UniqueFd() : open_dir_no_symlinks(real);
    w.anchor = fd ? std::make_shared<UniqueFd>(std::move(fd)) : nullptr;
    w.rel = std::move(rel);
  };
  hold(root, path.substr(root == "/" ? 1 : root.size() + 1));
  BeneathEntry e = read_now(w);
  if (e.kind == BeneathEntry::Symlink && e.component) {
    // The user's own layout (~/.claude a link to a dotfiles dir): trusted as it resolves now,
    // before anything in the sandbox ran.
    hold(dirname_of(path), path.substr(path.rfind('/') + 1));
    e = read_now(w);
  }
  if (e.kind == BeneathEntry::File) w.text = std::move(e.text);
  if (e.kind == BeneathEntry::Symlink && !e.component) {
    w.link = e.link;
    w.text = read_through_link(w, e);
  }
  return w;
}

namespace {
// What a whole-text watched file is, for the report: named by blaude's own list, never by what
// the agent wrote.
std::string script_role(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  if (base == ".mcp.json") return "the project's MCP servers (claude -p starts them without asking)";
  if (base == "CLAUDE.md") return "Claude Code's user instructions (read at every start)";
  for (const auto& e : claude_code_entries())
    if (!e.dir && base == e.name) return "Claude Code's " + base + " (read at every start)";
  return "a program claude's settings name";
}
}  // namespace

std::vector<audit::Finding> claude_findings(const std::vector<WatchedClaude>& watched, const std::string& stamp) {
  std::vector<audit::Finding> out;
  std::set<std::string> components;  // a dir made a link is reported once
  for (const auto& w : watched) {
    BeneathEntry e = read_now(w);
    audit::Finding f;
    f.path = w.path;
    f.act = audit::Act::Rewrite;
    f.claude = w.kind;
    f.claude_before = w.text;
    f.held_dir = e.dir;
    f.held_name = e.name;
    std::optional<std::string> text;
    std::string hostile;
    switch (e.kind) {
      case BeneathEntry::Missing: continue;  // gone: nothing of it runs
      case BeneathEntry::File: text = std::move(e.text); break;
      case BeneathEntry::Symlink:
        if (e.component) {
          // A dir on the way to the file is now a symlink: claude would read (and a rewrite would
          // write) wherever it leads, another project's settings say. The link itself goes.
          const size_t cut = w.path.size() - w.rel.size();
          std::string p = w.path.substr(0, cut);
          for (const auto& part : relative_components(w.rel)) {
            p += part;
            if (part == e.name) break;
            p += "/";
          }
          if (!components.insert(p).second) continue;
          f.path = p;
          f.details = {"a symlink (to " + e.link + ") where " + w.path + " has a directory: claude would follow it"};
          f.act = audit::Act::MoveAside;
          f.aside = f.path + ".blaude-audit-" + stamp;
          out.push_back(std::move(f));
          continue;
        }
        if (!w.link.empty() && e.link == w.link) {
          text = read_through_link(w, e);  // the user's own link, as at the start
          if (!text) hostile = "what its symlink leads to is no regular file blaude can read";
        } else {
          hostile = "a symlink (to " + e.link + ") that was not there at the start: claude would follow it";
        }
        break;
      case BeneathEntry::TooBig:
        hostile = "larger than blaude reads (" + mib(e.size) + ", at most " + mib(claude_cap(w.kind)) + ")";
        break;
      case BeneathEntry::Other: hostile = "not a regular file (a FIFO, a socket, a device or a directory)"; break;
      case BeneathEntry::Error: hostile = "cannot be read (" + e.error + ")"; break;
    }
    if (hostile.empty() && text == w.text) continue;  // the usual case for settings: nothing to parse
    std::vector<std::string> changes;
    if (hostile.empty()) {
      changes = audit::claude_changes(audit::project_claude(w.kind, w.text), audit::project_claude(w.kind, text));
      if (changes.empty()) continue;
      if (w.kind == audit::ClaudeFile::Script)
        changes = {script_role(w.path) + (w.text ? ", rewritten" : ", created")};
    } else {
      changes = {hostile};
      f.whole = true;
    }
    f.details = std::move(changes);
    f.aside = w.path + ".blaude-audit-" + stamp;
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// `before` takes `start` (a running session's, walked over `their` roots) as its own for what
// lies under their roots and its own (`ours`): what the other session's agent made since is new
// to this one too.
void adopt_start(audit::Snapshot& before, const std::vector<std::string>& their, const audit::Snapshot& start,
                 const std::vector<std::string>& ours) {
  auto both = [&](const std::string& p) { return is_under_any(p, their) && is_under_any(p, ours); };
  auto both_key = [&](const auto& kv) { return both(kv.first); };
  // Under both, each collection holds the running session's entries instead of this walk's.
  auto take_map = [&](auto& mine, const auto& theirs) {
    std::erase_if(mine, both_key);
    for (const auto& kv : theirs)
      if (both(kv.first)) mine.insert(kv);
  };
  auto take_set = [&](auto& mine, const auto& theirs) {
    std::erase_if(mine, both);
    for (const auto& p : theirs)
      if (both(p)) mine.insert(mine.end(), p);
  };
  take_map(before.files, start.files);
  take_map(before.claude_names, start.claude_names);
  take_set(before.repos, start.repos);
  take_set(before.own_hook_dirs, start.own_hook_dirs);
  take_set(before.configured_hook_dirs, start.configured_hook_dirs);
  take_set(before.unchecked, start.unchecked);
  before.complete = before.complete && start.complete;
}

// The snapshot before the session; only with it does the session's end compare repositories.
void take_before(AuditSession& s, const std::vector<audit::PriorWalk>& prior) {
  if (s.test_delay_ms > 0) {  // to the end, signals or not (the supervisor's SIGCHLD interrupts a sleep)
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::min(s.test_delay_ms, 5000));
    while (std::chrono::steady_clock::now() < end) std::this_thread::sleep_until(end);
  }
  s.before = audit::take_snapshot(s.walk, prior);  // the after walk walks everything
  for (const auto& [walk, start] : s.running_git) adopt_start(s.before, walk.roots, start, s.walk.roots);
  s.enabled = true;
  spdlog::info("audit: before the session: {} repos, {} files, {} dirs in {:.1f} ms{}", s.before.repos.size(),
               s.before.files.size(), s.before.dirs, s.before.seconds * 1000,
               s.before.complete ? "" : " (incomplete)");
}

}  // namespace

std::vector<std::pair<std::string, audit::ClaudeFile>> claude_watched_files(const std::string& home,
                                                                          const std::string& config_dir_env,
                                                                          const std::string& workspace) {
  using K = audit::ClaudeFile;
  const std::string cd = config_dir_env.empty() || config_dir_env[0] != '/' ? home + "/.claude" : normalize(config_dir_env);
  std::vector<std::pair<std::string, K>> out{{cd + "/settings.json", K::Settings},
                                              {cd + "/settings.local.json", K::Settings},
                                              {home + "/.claude.json", K::State}};
  if (cd != home + "/.claude") out.push_back({cd + "/.claude.json", K::State});
  // The files of claude_code_entries(): read-only when they exist (plan.cpp
  // add_claude_code_guards), but no mount can stand for a missing file: one the session creates
  // is moved aside here. All of such a file is code (or instructions).
  for (const auto& e : claude_code_entries())
    if (!e.dir) out.push_back({cd + "/" + e.name, K::Script});
  if (!workspace.empty()) {
    out.push_back({workspace + "/.claude/settings.json", K::Settings});
    out.push_back({workspace + "/.claude/settings.local.json", K::Settings});
    // The project's MCP servers: `claude -p` there starts them without asking.
    out.push_back({workspace + "/.mcp.json", K::Script});
  }
  return out;
}

std::vector<std::string> claude_watched_scripts(const std::vector<WatchedClaude>& settings, const std::string& home,
                                                const std::string& workspace, const std::vector<std::string>& writable) {
  constexpr size_t kMaxScripts = 64;
  std::vector<std::string> out;
  for (const auto& w : settings) {
    if (w.kind != audit::ClaudeFile::Settings || !w.text) continue;
    // Strictly (bounded depth, no duplicate key): the command walk recurses on the document.
    if (!strict_json_error(*w.text).empty()) continue;
    const auto doc = nlohmann::json::parse(*w.text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) continue;
    for (const auto& cmd : claude_setting_commands(doc))
      for (const auto& p : claude_command_paths(cmd, home, workspace)) {
        const bool w = std::any_of(writable.begin(), writable.end(), [&](const std::string& d) { return is_under(p, d); });
        if (w && out.size() < kMaxScripts && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
  }
  return out;
}

std::vector<std::string> audit_roots(const std::vector<std::string>& writable_dirs) {
  std::vector<std::string> dirs;
  for (const auto& d : writable_dirs) {
    char buf[PATH_MAX];
    struct stat st;
    if (!::realpath(d.c_str(), buf) || ::stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    std::string r = buf;
    if (r == "/tmp" || r == "/") continue;  // not a place the user keeps repositories
    dirs.push_back(r);
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<std::string> out;
  for (const auto& d : dirs)
    if (out.empty() || !is_under(d, out.back())) out.push_back(d);
  return out;
}

std::optional<audit::PriorWalk> prior_walk(const sandbox::bwrap::WorkspaceScan& ws) {
  if (ws.truncated || ws.root.empty()) return std::nullopt;
  audit::PriorWalk p;
  p.root = ws.root;
  p.dirs = ws.dirs;
  p.unreadable = ws.unreadable;
  using F = sandbox::bwrap::FoundGit;
  for (const auto& g : ws.walk_found) {
    const auto k = g.kind == F::Dir    ? audit::PriorWalk::GitDir
                   : g.kind == F::File ? audit::PriorWalk::GitFile
                   : g.kind == F::Symlink ? audit::PriorWalk::GitLink
                                          : audit::PriorWalk::Bare;
    p.found.push_back({k, g.path});
  }
  for (const auto& [rel, pf] : ws.hits) {
    if (!claude_code_project_name(basename_of(rel))) continue;
    auto id = ws.ids.find(ws.root + "/" + rel);
    p.claude_names.emplace(ws.root + "/" + rel,
                           id != ws.ids.end() && id->second.type ? audit::file_identity(id->second.dev, id->second.ino) : "");
  }
  return p;
}

namespace {

// The oldest running session that watches the same file holds its start state: that, not the
// file as the other sandbox may have left it, is this session's baseline.
void take_live_baseline(WatchedClaude& w, const std::vector<Journal>& live) {
  for (const auto& j : live)
    for (const auto& f : j.files)
      if (f.path == w.path && f.kind == w.kind) {
        w.text = f.text;
        return;
      }
}

// A session that never finished: its files against its journal, neutralised and reported now,
// before anything of this session runs.
bool audit_orphan(const Journal& j) {
  std::vector<WatchedClaude> watched;
  for (const auto& f : j.files) {
    WatchedClaude w = watch_claude(f.path, f.kind, j.roots);
    w.text = f.text;
    watched.push_back(std::move(w));
  }
  const std::string stamp = utc_stamp();
  auto findings = claude_findings(watched, stamp);
  auto applied = audit::apply_findings(findings, {});
  bool changed = false;
  // Its repositories: walked now, against the start it journaled.
  audit::Snapshot after;
  if (j.git) {
    audit::WalkInput w = j.git_walk;
    w.seconds = kAfterSeconds;
    w.sweep_seconds = kAfterSweepSeconds;
    w.read_indexes = true;
    after = audit::take_snapshot(w);
    auto git = audit::compare(*j.git, after, {w.roots, stamp});
    auto done = audit::apply_findings(git, w.roots);
    for (const auto& a : done) changed |= !a.aside.empty();
    findings.insert(findings.end(), git.begin(), git.end());
    applied.insert(applied.end(), done.begin(), done.end());
  }
  const std::string report = j.git ? audit::report_text(findings, applied, *j.git, after)
                                   : audit::report_text(findings, applied, {}, {});
  if (report.empty()) return changed;
  std::string text = "blaude: a session that did not finish (" + shown(j.name) +
                     ") is audited now, against its start:\n" + report;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  log_text(text);
  return changed;
}

}  // namespace

bool audit_orphans(const HostEnv& host, const cli::Options& o, const Launch& l, StartJournals& sj) {
  if (!l.sandboxed || o.allow_protected_writes) return false;
  sj.root =
      journal_root(host.home, host.get("XDG_STATE_HOME"), host.get("XDG_RUNTIME_DIR"), l.plan.writable_dirs, &sj.why);
  if (sj.root.empty()) return false;
  Journals found = read_journals(sj.root);
  for (const auto& b : found.bad) spdlog::warn("audit: {}/{} is not a journal blaude can read; left as it is", sj.root, b);
  bool changed = false;
  for (auto& j : found.orphaned) {
    changed |= audit_orphan(j);
    remove_journal(sj.root, j);
  }
  sj.live = std::move(found.live);
  return changed;
}

AuditSession audit_begin(const HostEnv& host, const cli::Options& o, const Launch& l, StartJournals sj) {
  AuditSession s;
  if (!l.sandboxed || o.allow_protected_writes) return s;
  std::vector<std::string> anchors = l.plan.writable_dirs;
  anchors.push_back(host.home);
  if (!o.tmp) anchors.push_back(host.cwd);
  // The sessions that never finished were audited by audit_orphans; the start of the ones
  // running now is this session's too.
  std::string why = sj.why;
  s.journal_root = sj.root;
  if (s.journal_root.empty()) {
    // The home shared with the sandbox (or under /tmp) and no runtime dir: the audit at the end
    // still runs; only a session killed before it is not audited later. Logged, not printed at
    // every start of such a setup (docs/policy.md says so).
    spdlog::warn("audit: no journal: {}: the audit's baseline lives only in this process (a session killed "
                 "before its end is not audited later)", why);
  }
  for (auto& [path, kind] : claude_watched_files(host.home, host.get("CLAUDE_CONFIG_DIR"), o.tmp ? "" : host.cwd)) {
    // Only read here (the start is on the way to the child's exec); parsed at the end, and only
    // when the file changed.
    s.claude.push_back(watch_claude(path, kind, anchors));
  }
  for (const auto& path : claude_watched_scripts(s.claude, host.home, o.tmp ? "" : host.cwd, l.plan.writable_dirs)) {
    s.claude.push_back(watch_claude(path, audit::ClaudeFile::Script, anchors));
  }
  for (auto& w : s.claude) take_live_baseline(w, sj.live);
  for (auto& j : sj.live)
    if (j.git) s.running_git.emplace_back(j.git_walk, std::move(*j.git));
  if (!s.journal_root.empty()) {
    s.journal.roots = anchors;
    for (const auto& w : s.claude) s.journal.files.push_back({w.path, w.kind, w.text});
    if (!write_journal(s.journal_root, s.journal, &why))
      std::fprintf(stderr, "blaude: warning: %s; the audit's baseline lives only in this process\n", shown(why).c_str());
  }
  s.walk.roots = audit_roots(l.plan.writable_dirs);
  if (s.walk.roots.empty()) return s;
  s.walk.home = host.home;
  s.walk.seconds = kBeforeSeconds;
  s.walk.sweep_seconds = kBeforeSweepSeconds;
  s.test_delay_ms = std::atoi(host.get("BLAUDE_TEST_AUDIT_DELAY_MS").c_str());
  s.live_off = host.get("BLAUDE_LIVE_AUDIT") == "off";
  s.live_depth = std::atoi(host.get("BLAUDE_TEST_LIVE_WALK_DEPTH").c_str());
  if (l.plan.deferred) return s;  // audit_before(), once the scan is done
  take_before(s, l.prior_walks);
  return s;
}

void audit_before(AuditSession& s, const sandbox::bwrap::WorkspaceScan& ws) {
  if (s.walk.roots.empty() || s.enabled) return;
  std::vector<audit::PriorWalk> prior;
  if (auto w = prior_walk(ws)) prior.push_back(std::move(*w));
  take_before(s, prior);
}

void audit_live(AuditSession& s, pid_t session) {
  if (!s.enabled || s.walk.roots.empty()) return;
  // The start of the repositories joins the journal now that the child runs (off the way to its
  // start): a session killed from here on is audited whole at the next start.
  if (!s.journal.name.empty()) {
    std::string why;
    if (!write_journal_git(s.journal_root, s.journal, s.walk, s.before, &why))
      spdlog::warn("audit: the repositories' start is not journaled: {}", why);
  }
  if (s.live_off) return;
  LiveConfig c;
  c.walk = s.walk;
  if (s.live_depth > 0) c.walk.max_depth = s.live_depth;
  c.stamp = utc_stamp() + "-live";
  c.session = session;
  s.live = std::make_unique<LiveAudit>(s.before, std::move(c));
}

void audit_end(AuditSession& s) {
  const std::string stamp = utc_stamp();
  // What the watcher did during the session comes first in the report.
  std::vector<audit::Finding> live_findings;
  std::vector<audit::Applied> live_applied;
  bool live_ended = false;
  if (s.live) {
    s.live->stop();
    spdlog::info("audit: during the session: {} walks, the longest {:.1f} ms, {} files made inert", s.live->checks,
                 s.live->longest_walk_ms, s.live->findings.size());
    live_findings = std::move(s.live->findings);
    live_applied = std::move(s.live->applied);
    live_ended = s.live->ended_session;
    s.live.reset();
    const char* when = "made inert during the session, as it appeared:";
    for (auto& f : live_findings) f.details.insert(f.details.begin(), when);
    for (auto& a : live_applied)
      if (!a.removed.empty()) a.removed.insert(a.removed.begin(), when);
  }
  // Done with the journal once the files are as this audit leaves them (every return below).
  struct Drop {
    AuditSession& s;
    ~Drop() { remove_journal(s.journal_root, s.journal); }
  } drop{s};
  std::vector<audit::Finding> findings, git;
  std::vector<audit::Applied> applied;
  audit::Snapshot after;
  if (s.enabled) {
    s.walk.seconds = kAfterSeconds;
    s.walk.sweep_seconds = kAfterSweepSeconds;
    s.walk.read_indexes = true;
    s.walk.known_indexes = &s.before.index_stats;
    after = audit::take_snapshot(s.walk);
    git = audit::compare(s.before, after, {s.walk.roots, stamp});
  }
  if (!s.claude.empty()) findings = claude_findings(s.claude, stamp);
  // A new .claude or .mcp.json the walk found: one the watched files cover is theirs (their
  // baseline is journaled); a new .claude dir goes aside whole, the watched files in it with it.
  auto watched = [&](const std::string& p) {
    return std::any_of(s.claude.begin(), s.claude.end(), [&](const WatchedClaude& w) { return w.path == p; });
  };
  git.erase(std::remove_if(git.begin(), git.end(), [&](const audit::Finding& f) { return f.claude && watched(f.path); }),
            git.end());
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [&](const audit::Finding& c) {
                                  return std::any_of(git.begin(), git.end(), [&](const audit::Finding& g) {
                                    return g.claude && g.act == audit::Act::MoveAside && is_under(c.path, g.path);
                                  });
                                }),
                 findings.end());
  // Claude's files first: a git finding cannot touch them, and their rewrite is in their own dir
  // only (the paths are blaude's, not the agent's: their dirs are the roots). Each finding carries
  // the dir it was read in, reached beneath one held since the start: no path is resolved again,
  // so nothing outside is touched.
  applied = audit::apply_findings(findings, {});
  auto done = audit::apply_findings(git, s.walk.roots);
  findings.insert(findings.end(), git.begin(), git.end());
  applied.insert(applied.end(), done.begin(), done.end());
  findings.insert(findings.begin(), live_findings.begin(), live_findings.end());
  applied.insert(applied.begin(), live_applied.begin(), live_applied.end());
  if (live_ended)
    std::fprintf(stderr, "blaude: the session was ended: the agent kept writing git configuration that runs programs "
                         "on this machine (%zu files made inert while it ran)\n", live_findings.size());
  if (findings.empty() && !s.enabled) return;
  spdlog::info("audit: after the session: {} repos, {} files, {} dirs in {:.1f} ms; {} findings", after.repos.size(),
               after.files.size(), after.dirs, after.seconds * 1000, findings.size());
  const std::string text = audit::report_text(findings, applied, s.before, after);
  if (text.empty()) return;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  log_text(text);
}

}  // namespace blaude::app
