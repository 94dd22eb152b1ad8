#include "sandbox/bwrap/run/limits.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <vector>

#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "common/file_io.hpp"
#include "common/pipe.hpp"

namespace blaude::sandbox::bwrap {

namespace {

std::vector<std::string> split_lines(const std::string& t) {
  std::vector<std::string> out;
  std::istringstream in(t);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool has_word(const std::string& text, const std::string& w) {
  std::istringstream in(text);
  for (std::string x; in >> x;)
    if (x == w) return true;
  return false;
}

// mountinfo escapes blanks in paths as \040 (and \011, \012, \134).
std::string unescape_mountinfo(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3') {
      out += char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string parent_dir(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
}

bool write_file(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return false;
  return ::write(fd.get(), text.data(), text.size()) == ssize_t(text.size());
}

// The real uid's tasks (processes and threads) now: what RLIMIT_NPROC counts. /proc/PID/task's
// link count is 2 + its threads.
uint64_t own_tasks() {
  uint64_t n = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return 0;
  const uid_t uid = ::getuid();
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    struct stat st;
    std::string task = std::string(e->d_name) + "/task";
    if (::fstatat(::dirfd(d), task.c_str(), &st, 0) != 0 || st.st_uid != uid) continue;
    n += st.st_nlink > 2 ? st.st_nlink - 2 : 1;
  }
  ::closedir(d);
  return n;
}

std::string limits_text(const LimitSettings& s) {
  return "memory " + format_size(s.memory_max) + ", " + std::to_string(s.pids_max) + " tasks";
}

}  // namespace

uint64_t cgroup_event_count(const std::string& text, const std::string& key) {
  for (const auto& l : split_lines(text)) {
    if (l.size() <= key.size() || l.compare(0, key.size(), key) != 0 || l[key.size()] != ' ') continue;
    uint64_t n = 0;
    for (size_t i = key.size() + 1; i < l.size() && l[i] >= '0' && l[i] <= '9' && n < (UINT64_MAX / 10 - 9); ++i)
      n = n * 10 + uint64_t(l[i] - '0');
    return n;
  }
  return 0;
}

std::string own_cgroup_dir(const std::string& proc_self_cgroup, const std::string& mountinfo) {
  std::string path;
  for (const auto& l : split_lines(proc_self_cgroup))
    if (l.starts_with("0::")) path = l.substr(3);
  if (path.empty() || path[0] != '/') return "";
  // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE SUPEROPTS
  for (const auto& l : split_lines(mountinfo)) {
    std::istringstream in(l);
    std::vector<std::string> f;
    for (std::string x; in >> x;) f.push_back(x);
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 1 >= f.size() || f[dash + 1] != "cgroup2" || f.size() < 5) continue;
    const std::string root = unescape_mountinfo(f[3]), mnt = unescape_mountinfo(f[4]);
    // The mount shows the hierarchy from `root` down: our cgroup must be below it.
    std::string rel;
    if (root == "/") rel = path;
    else if (path == root) rel = "";
    else if (path.starts_with(root + "/")) rel = path.substr(root.size());
    else continue;
    return mnt == "/" ? (rel.empty() ? "/" : rel) : mnt + (rel == "/" ? "" : rel);
  }
  return "";
}

LimitPlan plan_limits(const LimitSettings& s, const std::string& proc_self_cgroup, const std::string& mountinfo) {
  LimitPlan p;
  p.settings = s;
  if (s.off) {
    p.kind = LimitKind::Off;
    return p;
  }
  p.kind = LimitKind::Rlimit;
  const std::string own = own_cgroup_dir(proc_self_cgroup, mountinfo);
  if (own.empty()) {
    p.no_cgroup = proc_self_cgroup.find("0::") == std::string::npos ? "no cgroup v2 here (cgroup v1 only)"
                                                                      : "the cgroup v2 hierarchy is not mounted";
    return p;
  }
  if (proc_self_cgroup.find("0::/\n") != std::string::npos || proc_self_cgroup.ends_with("0::/")) {
    p.no_cgroup = "blaude runs in the root cgroup (cgroup v2), which has no delegated parent";
    return p;
  }
  const std::string parent = parent_dir(own);
  const auto controllers = read_small_file(parent + "/cgroup.controllers").value_or("");
  const bool memory = has_word(controllers, "memory"), pids = has_word(controllers, "pids");
  if (own == parent || (!memory && !pids)) {
    p.no_cgroup = "the memory and pids controllers are not delegated to " + parent + " (cgroup v2)";
    return p;
  }
  // Making the leaf, moving into it (cgroup.procs of the common ancestor), and enabling the
  // controllers for it when they are not yet.
  const auto subtree = read_small_file(parent + "/cgroup.subtree_control").value_or("");
  const bool enabled = (!memory || has_word(subtree, "memory")) && (!pids || has_word(subtree, "pids"));
  if (::access(parent.c_str(), W_OK | X_OK) != 0 || ::access((parent + "/cgroup.procs").c_str(), W_OK) != 0 ||
      (!enabled && ::access((parent + "/cgroup.subtree_control").c_str(), W_OK) != 0)) {
    p.no_cgroup = "no delegated cgroup: " + parent + " is not yours to write";
    return p;
  }
  p.kind = LimitKind::Cgroup;
  p.cgroup_parent = parent;
  p.cg_memory = memory;
  p.cg_pids = pids;
  if (!memory || !pids)
    p.no_cgroup = std::string("the ") + (memory ? "pids" : "memory") + " controller is not delegated to " + parent;
  return p;
}

LimitPlan plan_limits(const LimitSettings& s) {
  return plan_limits(s, read_small_file("/proc/self/cgroup").value_or(""),
                     read_small_file("/proc/self/mountinfo", 1 << 20).value_or(""));
}

std::string describe_limits(const LimitPlan& p) {
  switch (p.kind) {
    case LimitKind::Off:
      return "NO resource limits of blaude's (--no-limits: the account's)";
    case LimitKind::Cgroup:
      if (p.cg_memory && p.cg_pids) return "limits: cgroup v2 (" + limits_text(p.settings) + ")";
      if (p.cg_pids)
        return "limits: cgroup v2 (" + std::to_string(p.settings.pids_max) + " tasks), NO memory limit (" +
               p.no_cgroup + ")";
      return "limits: cgroup v2 (memory " + format_size(p.settings.memory_max) + "), RLIMIT_NPROC (" +
             std::to_string(p.settings.pids_max) + " tasks beyond the account's; " + p.no_cgroup + ")";
    case LimitKind::Rlimit:
      break;
  }
  return "limits: RLIMIT_NPROC (" + std::to_string(p.settings.pids_max) +
         " tasks beyond the account's), NO memory limit (" + p.no_cgroup + ")";
}

std::unique_ptr<SandboxLimits> SandboxLimits::start(const LimitPlan& p, std::string* note) {
  if (p.kind == LimitKind::Off) return nullptr;
  std::unique_ptr<SandboxLimits> l(new SandboxLimits);
  l->s_ = p.settings;
  l->kind_ = LimitKind::Rlimit;
  if (p.kind == LimitKind::Cgroup) {
    const std::string leaf = p.cgroup_parent + "/blaude-" + std::to_string(::getpid());
    std::string why;
    const auto subtree = read_small_file(p.cgroup_parent + "/cgroup.subtree_control").value_or("");
    std::string enable;
    if (p.cg_memory && !has_word(subtree, "memory")) enable += "+memory ";
    if (p.cg_pids && !has_word(subtree, "pids")) enable += "+pids";
    if (!enable.empty() && !write_file(p.cgroup_parent + "/cgroup.subtree_control", enable))
      why = "cannot enable " + enable + " in " + p.cgroup_parent + ": " + std::strerror(errno);
    else if (::mkdir(leaf.c_str(), 0755) != 0)
      why = "cannot make " + leaf + ": " + std::strerror(errno);
    if (why.empty()) {
      // Swap counts as memory here: a balloon that swaps would slow the whole machine first.
      std::vector<std::pair<std::string, std::string>> settings;
      if (p.cg_memory)
        settings = {{"memory.max", std::to_string(p.settings.memory_max)}, {"memory.swap.max", "0"},
                    {"memory.oom.group", "1"}};
      if (p.cg_pids) settings.emplace_back("pids.max", std::to_string(p.settings.pids_max));
      for (const auto& [file, value] : settings)
        if (!write_file(leaf + "/" + file, value) &&
            !(errno == ENOENT && file == "memory.swap.max")) {  // no swap accounting
          why = "cannot set " + leaf + "/" + file + ": " + std::strerror(errno);
          break;
        }
      l->procs_path_ = leaf + "/cgroup.procs";
      if (why.empty() && ::access(l->procs_path_.c_str(), W_OK) != 0)
        why = "cannot write " + l->procs_path_ + ": " + std::strerror(errno);
      if (!why.empty()) ::rmdir(leaf.c_str());
    }
    if (why.empty()) {
      l->kind_ = LimitKind::Cgroup;
      l->cg_memory_ = p.cg_memory;
      l->cg_pids_ = p.cg_pids;
      l->leaf_ = leaf;
      if (p.cg_pids) return l;
    } else if (note) {
      *note = why + "; RLIMIT_NPROC instead, and no memory limit";
    }
  }
  // Never raises a limit: a lower one the user set stays.
  struct rlimit cur{};
  l->nproc_ = own_tasks() + p.settings.pids_max;
  if (::getrlimit(RLIMIT_NPROC, &cur) == 0 && cur.rlim_cur != RLIM_INFINITY && cur.rlim_cur < l->nproc_)
    l->nproc_ = cur.rlim_cur;
  return l;
}

int SandboxLimits::enter() const {
  if (kind_ == LimitKind::Cgroup) {
    int fd = ::open(procs_path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    const bool ok = ::write(fd, "0", 1) == 1;
    const int e = errno;
    ::close(fd);
    if (!ok) return e ? e : EIO;
    if (cg_pids_) return 0;
  }
  const struct rlimit nproc{rlim_t(nproc_), rlim_t(nproc_)};
  return ::setrlimit(RLIMIT_NPROC, &nproc) != 0 ? errno : 0;
}

int enter_limits(const void* limits, int* step) {
  int e = static_cast<const SandboxLimits*>(limits)->enter();
  if (e) *step = 1;
  return e;
}

void SandboxLimits::watch() {
#ifdef __linux__
  if (kind_ != LimitKind::Cgroup || !cg_pids_ || watcher_.joinable()) return;
  if (!make_pipe(stop_rd_, stop_wr_)) return;
  UniqueFd in(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!in) return;
  const std::string events = leaf_ + "/pids.events";
  if (::inotify_add_watch(in.get(), events.c_str(), IN_MODIFY) < 0) return;
  watcher_ = std::thread([this, in = std::move(in), events] {
    // pids.events changes when a fork is refused at pids.max: then the whole sandbox ends, as
    // memory.oom.group ends it at memory.max (a fork bomb would otherwise spin at the limit).
    // The 1 s timeout re-reads it in case a notification was missed.
    while (!stop_) {
      pollfd fds[2] = {{in.get(), POLLIN, 0}, {stop_rd_.get(), POLLIN, 0}};
      int r = ::poll(fds, 2, 1000);
      if (r < 0 && errno != EINTR) return;
      if (fds[1].revents) return;
      char buf[4096];
      while (::read(in.get(), buf, sizeof buf) > 0) {
      }
      if (cgroup_event_count(read_small_file(events).value_or(""), "max") > 0) {
        killed_for_pids_ = true;
        spdlog::warn("limits: the sandbox reached pids.max ({}); ending it", s_.pids_max);
        write_file(leaf_ + "/cgroup.kill", "1");
        return;
      }
    }
  });
#endif
}

std::string SandboxLimits::finish() {
  if (watcher_.joinable()) {
    stop_ = true;
    if (stop_wr_) (void)!::write(stop_wr_.get(), "x", 1);
    watcher_.join();
  }
  if (kind_ != LimitKind::Cgroup || leaf_.empty()) return "";
  const uint64_t ooms = cgroup_event_count(read_small_file(leaf_ + "/memory.events").value_or(""), "oom_kill");
  const uint64_t forks = cgroup_event_count(read_small_file(leaf_ + "/pids.events").value_or(""), "max");
  // bwrap's pid namespace ends with it; anything left (a process that escaped the namespace
  // cannot, but a dying one may linger) is ended, then the leaf goes.
  write_file(leaf_ + "/cgroup.kill", "1");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (::rmdir(leaf_.c_str()) != 0 && errno == EBUSY && std::chrono::steady_clock::now() < until)
    ::usleep(10 * 1000);
  leaf_.clear();
  const std::string user_policy = "in ~/.config/blaude/policy for every session";
  if (ooms > 0)
    return "blaude: the sandbox used all the memory it may (memory.max " + format_size(s_.memory_max) +
           "): the kernel ended its processes. --memory-max SIZE raises it (memory-max " + user_policy + ").";
  if (killed_for_pids_ || forks > 0)
    return "blaude: the sandbox reached its process limit (pids.max " + std::to_string(s_.pids_max) +
           " tasks): blaude ended its processes. --pids-max N raises it (pids-max " + user_policy + ").";
  return "";
}

SandboxLimits::~SandboxLimits() { finish(); }

}  // namespace blaude::sandbox::bwrap
