#include "app/live_audit.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <set>

#include "common/file_io.hpp"
#include "common/paths.hpp"
#include "common/shown.hpp"

namespace blaude::app {

namespace {

using Clock = std::chrono::steady_clock;

// A walk that takes long on a big tree is made this many times its own length apart at most,
// so the watcher costs a few percent of one core whatever the tree.
constexpr double kWalkShare = 20.0;
// Past this many watched dirs (a tree of thousands of repositories), new ones are left to the
// periodic walk.
constexpr size_t kMaxWatches = 4096;

// Git's files in a gitdir whose change can make a repository's config matter: the index (a
// gitlink added: git status enters that repository) and the config files themselves.
bool names_trigger(const char* name) {
  static const char* const names[] = {"index", "config", "config.worktree", "commondir", "gitdir", "modules", nullptr};
  for (const char* const* n = names; *n; ++n)
    if (std::strcmp(name, *n) == 0) return true;
  return false;
}

}  // namespace

std::vector<audit::Finding> live_actionable(std::vector<audit::Finding> all, const std::vector<std::string>& roots) {
  // A config outside the audited dirs is reached only through a pointer, which is moved aside.
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const audit::Finding& f) {
                             return f.claude || (f.role != audit::Role::Config && f.role != audit::Role::Pointer) ||
                                    f.act == audit::Act::None || !is_under_any(f.path, roots);
                           }),
            all.end());
  return all;
}

struct LiveAudit::Watches {
  int fd = -1;
  std::set<std::string> dirs;  // watched
  ~Watches() {
    if (fd >= 0) ::close(fd);
  }
  void add(const std::string& dir) {
#ifdef __linux__
    if (fd < 0 || dirs.size() >= kMaxWatches || dirs.count(dir)) return;
    // No symlink is followed: a gitdir the agent made a link elsewhere is walked, not watched.
    if (::inotify_add_watch(fd, dir.c_str(),
                            IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_CREATE | IN_DONT_FOLLOW | IN_ONLYDIR) >= 0)
      dirs.insert(dir);
#else
    (void)dir;
#endif
  }
  // Drains the queue; true when an event names a file that matters (or events were lost).
  bool drain() {
#ifdef __linux__
    bool hit = false;
    alignas(struct inotify_event) char buf[16384];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return hit;
      for (ssize_t i = 0; i + ssize_t(sizeof(struct inotify_event)) <= n;) {
        const auto* e = reinterpret_cast<const struct inotify_event*>(buf + i);
        if (e->mask & IN_Q_OVERFLOW) hit = true;
        else if (e->len && names_trigger(e->name)) hit = true;
        i += ssize_t(sizeof(struct inotify_event) + e->len);
      }
    }
#else
    return false;
#endif
  }
};

LiveAudit::LiveAudit(const audit::Snapshot& before, LiveConfig cfg)
    : before_(before), cfg_(std::move(cfg)), watches_(std::make_unique<Watches>()) {
  int p[2];
  if (::pipe(p) != 0) {
    stopped_ = true;
    spdlog::warn("audit: no watcher during the session: pipe: {}", std::strerror(errno));
    return;
  }
  stop_r_ = p[0];
  stop_w_ = p[1];
  ::fcntl(stop_r_, F_SETFD, FD_CLOEXEC);
  ::fcntl(stop_w_, F_SETFD, FD_CLOEXEC);
#ifdef __linux__
  watches_->fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watches_->fd < 0) spdlog::warn("audit: inotify: {}; the watcher only walks every {:.0f} s", std::strerror(errno), cfg_.sweep_seconds);
#endif
  for (const auto& r : before_.repos) watches_->add(r);
#ifdef __linux__
#ifdef SYS_pidfd_open
  // Taken now, while the session's process is surely not reaped yet.
  if (cfg_.session > 0) session_fd_ = int(::syscall(SYS_pidfd_open, cfg_.session, 0));
#endif
#endif
  thread_ = std::thread([this] { run(); });
}

LiveAudit::~LiveAudit() { stop(); }

void LiveAudit::stop() {
  if (!stopped_) {
    stopped_ = true;
    (void)!::write(stop_w_, "x", 1);
    if (thread_.joinable()) thread_.join();
  }
  if (session_fd_ >= 0) ::close(session_fd_);
  session_fd_ = -1;
  if (stop_r_ >= 0) ::close(stop_r_);
  if (stop_w_ >= 0) ::close(stop_w_);
  stop_r_ = stop_w_ = -1;
}

void LiveAudit::run() {
  auto interval = std::chrono::duration<double>(cfg_.sweep_seconds);
  auto next = Clock::now() + interval;
  auto earliest = Clock::now();  // the next walk no sooner than this (kWalkShare)
  bool pending = false;
  while (!ended_session) {
    struct pollfd p[2] = {{stop_r_, POLLIN, 0}, {watches_->fd, POLLIN, 0}};
    const auto now = Clock::now();
    auto until = pending ? earliest : next;
    int ms = until <= now ? 0 : int(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    int r = ::poll(p, watches_->fd >= 0 ? 2 : 1, ms);
    if (r < 0 && errno != EINTR) break;
    if (r > 0 && (p[0].revents & (POLLIN | POLLHUP))) break;
    if (r > 0 && (p[1].revents & POLLIN) && watches_->drain()) pending = true;
    const auto t = Clock::now();
    if ((pending && t >= earliest) || t >= next) {
      pending = false;
      const auto start = Clock::now();
      check();
      const auto took = Clock::now() - start;
      earliest = Clock::now() + took;  // at most half of one core while events keep coming
      next = Clock::now() + std::max(std::chrono::duration_cast<Clock::duration>(interval),
                                     std::chrono::duration_cast<Clock::duration>(took * kWalkShare));
    }
  }
}

void LiveAudit::check() {
  ++checks;
  audit::WalkInput w = cfg_.walk;
  w.seconds = std::min(w.seconds, 2.0);
  w.sweep_seconds = 0;
  w.read_indexes = true;
  w.known_indexes = &before_.index_stats;
  audit::Snapshot now = audit::take_snapshot(w);
  longest_walk_ms = std::max(longest_walk_ms, now.seconds * 1000);
  // A walk that stopped at its limit (a tree too big, or made so): the nested repositories the
  // indexes it read name are where git goes by itself, so those are walked on their own.
  if (!now.complete && !now.gitlinks.empty()) {
    audit::WalkInput t = w;
    t.roots.clear();
    for (const auto& g : now.gitlinks)
      if (canonical_path(g) == g && is_dir(g)) t.roots.push_back(g);
    if (!incomplete_said_) {
      incomplete_said_ = true;
      spdlog::warn("audit: during the session the walk stops at its limit ({} dirs in {:.1f} s); the {} nested "
                   "repositories the indexes name are walked on their own",
                   now.dirs, now.seconds, t.roots.size());
    }
    audit::Snapshot extra = audit::take_snapshot(t);
    for (auto& [p, r] : extra.files) now.files.emplace(p, std::move(r));
    for (auto& r : extra.repos)
      if (std::find(now.repos.begin(), now.repos.end(), r) == now.repos.end()) now.repos.push_back(r);
    for (auto& [p, why] : extra.bad_indexes) now.bad_indexes.emplace(p, why);
    now.own_hook_dirs.insert(extra.own_hook_dirs.begin(), extra.own_hook_dirs.end());
  }
  // Watch the gitdirs that appeared, and the dirs their config files are in (an include).
  for (const auto& r : now.repos) watches_->add(r);
  for (const auto& [path, rec] : now.files)
    if (rec.role == audit::Role::Config) watches_->add(dirname_of(path));
  const std::string stamp = cfg_.stamp + "-" + std::to_string(checks);
  auto act = live_actionable(audit::compare(before_, now, {w.roots, stamp}), w.roots);
  if (act.empty()) return;
  auto done = audit::apply_findings(act, w.roots);
  bool failed = false;
  for (size_t i = 0; i < act.size(); ++i) {
    spdlog::warn("audit: during the session: {} {}: {}", act[i].act == audit::Act::Rewrite ? "rewrote" : "moved aside",
                 shown(act[i].path), done[i].aside.empty() ? "FAILED: " + shown(done[i].error) : "done");
    failed |= done[i].aside.empty();
    findings.push_back(std::move(act[i]));
    applied.push_back(std::move(done[i]));
  }
  // One the watcher could not make inert stays runnable while the sandbox runs: that ends it at
  // once; so does an agent that keeps putting such keys back (each time is a window).
  if ((failed || int(applied.size()) >= cfg_.max_rewrites) && cfg_.session > 0) {
    spdlog::error("audit: during the session: {} config files made inert{}; ending the session", applied.size(),
                  failed ? ", one could not be" : "");
    // By pidfd where there is one: the session may have ended and been reaped meanwhile, and
    // its pid taken by another process of the user's.
    bool sent = false;
#ifdef __linux__
#ifdef SYS_pidfd_send_signal
    if (session_fd_ >= 0) {
      (void)::syscall(SYS_pidfd_send_signal, session_fd_, SIGKILL, nullptr, 0);
      sent = true;
    }
#endif
#endif
    if (!sent) ::kill(cfg_.session, SIGKILL);
    ended_session = true;
  }
}

}  // namespace blaude::app
