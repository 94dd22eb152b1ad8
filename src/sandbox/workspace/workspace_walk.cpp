#include "sandbox/workspace/workspace_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.hpp"
#include "common/claude_keys.hpp"
#include "sandbox/workspace/names.hpp"
#if BLAUDE_LINUX_CALLS
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "common/dir_list.hpp"
#include "common/unique_fd.hpp"

namespace blaude::sandbox::workspace {

namespace {

using SharedFd = std::shared_ptr<UniqueFd>;

unsigned type_of(int dirfd, const char* name, unsigned char dt) {
  switch (dt) {
    case DT_DIR: return S_IFDIR;
    case DT_REG: return S_IFREG;
    case DT_LNK: return S_IFLNK;
    case DT_UNKNOWN: break;
    default: return S_IFSOCK;  // any other kind: not a dir, file or link
  }
  struct stat st;
  if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  return unsigned(st.st_mode & S_IFMT);
}

// One dir of the walk and what its own entries held. Kept until the walk ends: the results are
// put together afterwards in pre-order with each dir's subdirs in byte order (what callers and
// the audit's PriorWalk rely on), whichever thread read which dir.
struct Node {
  std::string rel;          // "" for the root
  int depth = 1;            // the depth of its entries (the root's own are 1)
  bool unreadable = false;  // could not be opened (EACCES)
  std::vector<FoundGit> git;        // its `.git`, then itself when it is bare-shaped
  std::vector<WalkEntry> dotnames;
  std::vector<WalkLink> links;
  std::vector<std::unique_ptr<Node>> subs;  // byte order of their names
};

struct Item {
  SharedFd parent;  // the open parent dir: children are opened relative to it, never by path
  Node* node;
};

// A dir more than this many levels down stops the walk (reported as truncated, as an exhausted
// descriptor table did when the walk held one descriptor per level).
constexpr int kMaxDepth = 1000;
// The first dirs are read by the calling thread alone: a small repository is done before a
// thread would have started.
constexpr size_t kSoloDirs = 16;

struct Worker {
  DirBuffer buf = DirBuffer(64 * 1024);
  LeafCheck leaf;
};

struct Walk {
  Walk(const std::string& r, const WalkLimits& l, unsigned n)
      : root(r), lim(l), deadline(std::chrono::steady_clock::now() + l.budget), threads(n) {}
  const std::string& root;
  const WalkLimits& lim;
  const std::chrono::steady_clock::time_point deadline;
  const unsigned threads;
  std::atomic<size_t> entries{0}, dirs{0};
  std::atomic<bool> stopped{false};

  std::mutex m;  // guards everything below
  std::condition_variable cv;
  std::vector<Item> stack;  // popped from the back: depth first, first name first
  size_t busy = 0;
  size_t done = 0;
  bool spawned = false;
  bool truncated = false;
  std::string truncated_at;

  void truncate(const std::string& at) {
    std::lock_guard<std::mutex> lk(m);
    if (!truncated) {
      truncated = true;
      truncated_at = at.empty() ? "." : at;
    }
    stopped = true;
  }

  // Checked before each dir is opened; `parent`: the dir being read (named when the walk stops).
  bool stop(const std::string& parent) {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (entries.load(std::memory_order_relaxed) > lim.max_entries || std::chrono::steady_clock::now() > deadline) {
      truncate(parent);
      return true;
    }
    return false;
  }

  // The entries of the open dir `fd` (owned here) into `n`; its subdirs become items in `more`.
  void dir(Worker& w, UniqueFd fd, Node& n, std::vector<Item>& more) {
    ++dirs;
    const std::string base = n.rel.empty() ? "" : n.rel + "/";
    // Below the depths whose names and links are reported, a dir without subdirs (the kernel's
    // link count says so) can hold no `.git` dir and no bare repository: only a `.git` file or
    // link is looked for, not every entry.
    if (n.depth > std::max(lim.name_depth, lim.link_depth) && w.leaf.no_subdirs(fd.get())) {
      struct stat st;
      if (::fstatat(fd.get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
        ++entries;
        unsigned t = unsigned(st.st_mode & S_IFMT);
        FoundGit::Kind k = t == S_IFDIR ? FoundGit::Dir : t == S_IFREG ? FoundGit::File : FoundGit::Symlink;
        if (t == S_IFDIR || t == S_IFREG || t == S_IFLNK) n.git.push_back({k, root + "/" + base + ".git"});
      }
      // Nor a `.claude` dir, but a `.claude` link or file and a `.mcp.json` may be there.
      for (const char* name : kClaudeCodeProjectNames)
        if (::fstatat(fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
          ++entries;
          n.dotnames.push_back({base + name, unsigned(st.st_mode & S_IFMT)});
        }
      return;
    }
    std::vector<std::string> subs;
    bool head = false, objects = false, refs = false;
    size_t seen = 0;
    for_each_dir_entry(fd.get(), w.buf, [&](const char* name, unsigned char dtype) {
      ++seen;
      unsigned t = type_of(fd.get(), name, dtype);
      if (std::strcmp(name, ".git") == 0) {
        FoundGit::Kind k = t == S_IFDIR ? FoundGit::Dir : t == S_IFREG ? FoundGit::File : FoundGit::Symlink;
        if (t == S_IFDIR || t == S_IFREG || t == S_IFLNK) n.git.push_back({k, root + "/" + base + name});
        return;  // git internals are not walked
      }
      if (name[0] == '.' && (n.depth <= lim.name_depth || is_any_depth_name(name))) n.dotnames.push_back({base + name, t});
      if (t == S_IFLNK && n.depth <= lim.link_depth) {
        char lb[4096];
        ssize_t k = ::readlinkat(fd.get(), name, lb, sizeof lb - 1);
        if (k > 0) n.links.push_back({base + name, std::string(lb, size_t(k))});
      }
      if (t == S_IFDIR) subs.emplace_back(name);
      head |= t == S_IFREG && std::strcmp(name, "HEAD") == 0;
      objects |= t == S_IFDIR && std::strcmp(name, "objects") == 0;
      refs |= t == S_IFDIR && std::strcmp(name, "refs") == 0;
    });
    entries += seen;
    if (head && objects && refs && !n.rel.empty()) {
      // A bare repository (or a gitdir under another name): its contents are git's.
      n.git.push_back({FoundGit::Bare, root + "/" + n.rel});
      return;
    }
    if (subs.empty()) return;
    std::sort(subs.begin(), subs.end());
    if (n.depth >= kMaxDepth) return truncate(base + subs.front());
    auto shared = std::make_shared<UniqueFd>(std::move(fd));
    for (auto& s : subs) {
      auto c = std::make_unique<Node>();
      c->rel = base + s;
      c->depth = n.depth + 1;
      more.push_back({shared, c.get()});
      n.subs.push_back(std::move(c));
    }
  }

  // Opens the item's dir below its parent (never through a symlink) and reads it.
  void visit(Worker& w, const Item& it, std::vector<Item>& more) {
    Node& n = *it.node;
    const auto slash = n.rel.rfind('/');
    if (stop(slash == std::string::npos ? "" : n.rel.substr(0, slash))) return;
    const char* name = n.rel.c_str() + (slash == std::string::npos ? 0 : slash + 1);
    UniqueFd fd(::openat(it.parent->get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
      if (errno == EMFILE || errno == ENFILE) truncate(n.rel);
      else if (errno == EACCES) n.unreadable = true;
      return;
    }
    dir(w, std::move(fd), n, more);
  }

  void push(std::vector<Item>& more) {  // m held; the first name ends up on top
    for (auto r = more.rbegin(); r != more.rend(); ++r) stack.push_back(std::move(*r));
    more.clear();
  }

  void work(Worker& w, bool first, std::vector<std::thread>& helpers) {
    std::vector<Item> more;
    std::unique_lock<std::mutex> lk(m);
    for (;;) {
      if (first && !spawned && done >= kSoloDirs && stack.size() >= 2) {
        spawned = true;
        lk.unlock();
        // The helpers take no signal: whatever blaude handles stays with the thread that runs it.
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        for (unsigned i = 1; i < threads; ++i) {
          try {
            helpers.emplace_back([this, &helpers] {
              Worker own;
              work(own, false, helpers);
            });
          } catch (const std::system_error&) {
            break;  // no thread: this one walks on alone
          }
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        lk.lock();
        continue;
      }
      if (!stack.empty()) {
        Item it = std::move(stack.back());
        stack.pop_back();
        ++busy;
        lk.unlock();
        visit(w, it, more);
        it.parent.reset();  // the parent's descriptor closes with its last child's item
        lk.lock();
        --busy;
        ++done;
        const bool added = !more.empty();
        push(more);
        if (added || (busy == 0 && stack.empty())) cv.notify_all();
        continue;
      }
      if (busy == 0) return;
      cv.wait(lk);
    }
  }

  void collect(Node& n, WorkspaceWalk& out) {
    for (auto& g : n.git) out.git.push_back(std::move(g));
    for (auto& e : n.dotnames) out.dotnames.push_back(std::move(e));
    for (auto& l : n.links) out.links.push_back(std::move(l));
    for (auto& s : n.subs) {
      if (s->unreadable) out.unreadable.push_back(s->rel);
      else collect(*s, out);
    }
  }
};

unsigned auto_threads() {
#if BLAUDE_LINUX_CALLS
  cpu_set_t set;
  unsigned n = ::sched_getaffinity(0, sizeof set, &set) == 0 ? unsigned(CPU_COUNT(&set)) : 1;
#else
  unsigned n = std::thread::hardware_concurrency();
#endif
  return std::clamp(n, 1u, 4u);
}

}  // namespace

WorkspaceWalk walk_workspace(const std::string& root, const WalkLimits& limits) {
  const unsigned threads = limits.threads > 0 ? unsigned(std::min(limits.threads, 16)) : auto_threads();
  Walk walk(root, limits, threads);
  Node top;
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd) {
    Worker w;
    std::vector<Item> more;
    walk.dir(w, std::move(fd), top, more);
    walk.push(more);  // no other thread yet
    std::vector<std::thread> helpers;
    walk.work(w, true, helpers);
    for (auto& t : helpers) t.join();
  }
  WorkspaceWalk out;
  walk.collect(top, out);
  out.entries = walk.entries;
  out.dirs = walk.dirs;
  out.truncated = walk.truncated;
  out.truncated_at = walk.truncated_at;
  out.git_walk_order = out.git;
  std::sort(out.git.begin(), out.git.end(), [](const FoundGit& a, const FoundGit& b) { return a.path < b.path; });
  return out;
}

}  // namespace blaude::sandbox::workspace
