#include "audit/walk.hpp"

#include "common/sha256.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <map>
#include <cstring>
#include <memory>
#include <set>

#include "common/claude_keys.hpp"
#include "common/git_config.hpp"
#include "common/git_runners.hpp"
#include "audit/git_index.hpp"
#include "audit/git_paths.hpp"
#include "common/file_io.hpp"
#include "common/dir_list.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"

namespace blaude::audit {

namespace {

using Clock = std::chrono::steady_clock;
using SharedFd = std::shared_ptr<UniqueFd>;

struct Entry {
  std::string name;
  unsigned char type;
};

// All entries of an open dir (the fd stays open). DT_UNKNOWN is resolved with lstat.
std::vector<Entry> list_dir(int fd, DirBuffer& buf) {
  std::vector<Entry> out;
  for_each_dir_entry(fd, buf, [&](const char* name, unsigned char t) {
    if (t == DT_UNKNOWN) {
      struct stat st;
      if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
      t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
    }
    out.push_back({name, t});
  });
  return out;
}

// Reads what git would read at `path` (following a symlink, as git does). O_NONBLOCK: a FIFO
// planted as a config file must not hang the audit.
struct Read {
  FileKind kind = FileKind::File;
  std::string link;
  std::string content;
  std::string digest;
  bool too_big = false;
  unsigned mode = 0;
  bool exists = false;
};

constexpr off_t kMaxDigest = 16 << 20;

// A file the walk does not read, identified by what only a write can change (the kernel sets
// ctime): in place of a digest.
std::string large_identity(const struct stat& st) {
  return "large:" + std::to_string(st.st_size) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

// `keep_text` with `want_digest`: the first kMaxContent bytes are kept in content too (a hook's
// text, to see which hook manager it runs).
// `follow` false: a link is not read through (what a runner reads is taken as it is).
// `budget`: the bytes the walk may still digest (WalkInput::digest_budget), charged here.
Read read_file(int dirfd, const std::string& name, bool want_digest, bool keep_text = false, bool follow = true,
               uint64_t* budget = nullptr) {
  Read r;
  struct stat lst;
  if (::fstatat(dirfd, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) != 0) return r;
  r.exists = true;
  if (S_ISLNK(lst.st_mode)) {
    r.kind = FileKind::Symlink;
    char buf[4096];
    ssize_t n = ::readlinkat(dirfd, name.c_str(), buf, sizeof buf);
    if (n > 0) r.link.assign(buf, size_t(n));
  }
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW)));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0) return r;  // a dangling link: git reads nothing either
  r.mode = st.st_mode & 07777;
  if (!S_ISREG(st.st_mode)) {
    r.kind = FileKind::Other;  // a FIFO, a device, a dir: nothing git should be handed
    return r;
  }
  std::unique_ptr<Sha256> md(want_digest ? new Sha256 : nullptr);
  if (md && (st.st_size > kMaxDigest || (budget && uint64_t(st.st_size) > *budget))) {
    r.digest = large_identity(st);
    return r;
  }
  if (md && budget) *budget -= uint64_t(st.st_size);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (md) {
      md->update(std::string_view(buf, size_t(n)));
      if (keep_text && r.content.size() < kMaxContent)
        r.content.append(buf, std::min(size_t(n), kMaxContent - r.content.size()));
    } else if (r.content.size() + size_t(n) > kMaxContent) {
      r.too_big = true;
      break;
    } else {
      r.content.append(buf, size_t(n));
    }
  }
  if (md) r.digest = md->hex();
  return r;
}

UniqueFd open_dir(int at, const std::string& name, bool follow) {
  return UniqueFd(::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)));
}

class Walker {
public:
  explicit Walker(const WalkInput& in) : in_(in), start_(Clock::now()) {
    deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(in.seconds));
  }

  Snapshot run(const std::vector<PriorWalk>& prior) {
    for (const auto& root : in_.roots) {
      auto p = std::find_if(prior.begin(), prior.end(), [&](const PriorWalk& w) { return w.root == root; });
      if (p == prior.end() || !from_prior(*p)) walk_root(root);
    }
    manager_configs();
    if (in_.sweep_seconds > 0 && !unwalked_.empty()) sweep();
    snap_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    return std::move(snap_);
  }

private:
  struct Pending {
    SharedFd parent;
    std::string name;
    std::string path;
    int depth;
  };

  bool late() {
    if (Clock::now() < deadline_) return false;
    snap_.complete = false;
    return true;
  }

  void stopped_at(const std::string& path) {
    snap_.complete = false;
    if (snap_.not_reached.size() < 20) snap_.not_reached.push_back(path);
  }

  void walk_root(const std::string& root) {
    auto fd = std::make_shared<UniqueFd>(open_dir(AT_FDCWD, root, false));
    if (!*fd) return stopped_at(root + " (cannot be opened)");
    std::vector<Pending> stack;
    visit(fd, root, 0, stack);
    while (!stack.empty()) {
      Pending p = std::move(stack.back());
      stack.pop_back();
      if (late()) {
        stopped_at(p.path);
        for (const auto& q : stack) stopped_at(q.path);
        unwalked_.push_back(std::move(p));
        unwalked_.insert(unwalked_.end(), stack.begin(), stack.end());
        return;
      }
      auto dfd = std::make_shared<UniqueFd>(open_dir(p.parent->get(), p.name, false));
      if (!*dfd) {
        if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP) stopped_at(p.path + " (" + std::strerror(errno) + ")");
        continue;
      }
      visit(dfd, p.path, p.depth, stack);
    }
  }

  // The probe's walk of the same root, moments ago: visit what it found, in its order, as
  // walk_root would have reached them. false (nothing done): the root itself is bare-shaped,
  // which the probe does not report, so walk it.
  bool from_prior(const PriorWalk& p) {
    UniqueFd rootfd = open_dir(AT_FDCWD, p.root, false);
    if (!rootfd) return false;
    if (bare_shaped(rootfd.get())) return false;
    snap_.dirs += p.dirs;
    for (const auto& [c, id] : p.claude_names)
      if (is_under(c, p.root) && c != p.root) snap_.claude_names.emplace(c, id);
    for (const auto& rel : p.unreadable) stopped_at(p.root + "/" + rel + " (" + std::strerror(EACCES) + ")");
    for (size_t i = 0; i < p.found.size(); ++i) {
      const PriorWalk::Found& f = p.found[i];
      if (late()) {
        for (; i < p.found.size(); ++i) stopped_at(p.found[i].path);
        break;
      }
      const bool bare = f.kind == PriorWalk::Bare;
      const std::string dir = bare ? f.path : dirname_of(f.path);
      // A bare-shaped dir with a `.git` in it is a repository; its `.git` is not looked at.
      if (!bare && i + 1 < p.found.size() && p.found[i + 1].kind == PriorWalk::Bare && p.found[i + 1].path == dir)
        continue;
      if (dir != p.root && !is_under(dir, p.root)) continue;
      const std::string rel = dir == p.root ? "" : dir.substr(p.root.size() + 1);
      if (depth_of(rel) > in_.max_depth) {
        stopped_at(dir + " (deeper than " + std::to_string(in_.max_depth) + " levels)");
        snap_.unchecked.insert(f.path);  // found by the probe, not read
        continue;
      }
      UniqueFd d = open_beneath(rootfd.get(), rel, dir);
      if (!d) continue;
      if (bare) {
        gitdir_at(d.get(), dir, "");
        continue;
      }
      struct stat st;
      if (::fstatat(d.get(), ".git", &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      dotgit(d.get(), dir, S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN);
    }
    return true;
  }

  static bool bare_shaped(int fd) {
    struct stat h, o, r;
    return ::fstatat(fd, "HEAD", &h, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(h.st_mode) &&
           ::fstatat(fd, "objects", &o, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(o.st_mode) &&
           ::fstatat(fd, "refs", &r, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(r.st_mode);
  }

  static int depth_of(const std::string& rel) {
    return rel.empty() ? 0 : 1 + int(std::count(rel.begin(), rel.end(), '/'));
  }

  // `rel` below the root's fd, one component at a time, never through a symlink (the walk
  // does not follow one either).
  UniqueFd open_beneath(int rootfd, const std::string& rel, const std::string& path) {
    UniqueFd cur(::fcntl(rootfd, F_DUPFD_CLOEXEC, 0));
    size_t i = 0;
    while (cur && i < rel.size()) {
      size_t j = rel.find('/', i);
      if (j == std::string::npos) j = rel.size();
      cur = open_dir(cur.get(), rel.substr(i, j - i), false);
      i = j + 1;
    }
    if (!cur && errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
      stopped_at(path + " (" + std::strerror(errno) + ")");
    return cur;
  }

  // One directory: its `.git`, whether it is itself a bare repository, then its subdirs, in byte
  // order of their names (the probe's walk goes in the same order: from_prior relies on it, and
  // a repository reached two ways is then reached the same way first before and after).
  void visit(const SharedFd& fd, const std::string& path, int depth, std::vector<Pending>& stack) {
    ++snap_.dirs;
    // A dir without subdirs (the kernel's link count says so, leaf_dirs_) can be no bare
    // repository (objects/ and refs/ are dirs) and hold no `.git` dir: only a `.git` file or link
    // is looked for, instead of listing every entry.
    if (leaf_dirs_.no_subdirs(fd->get())) {
      struct stat st;
      if (::fstatat(fd->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
        dotgit(fd->get(), path, S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN);
      for (const char* name : kClaudeCodeProjectNames)
        if (::fstatat(fd->get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0) snap_.claude_names.emplace(path + "/" + name, identity(st));
      return;
    }
    std::vector<Entry> entries = list_dir(fd->get(), buf_);
    bool head = false, objects = false, refs = false;
    for (const auto& e : entries) {
      head |= e.name == "HEAD" && e.type == DT_REG;
      objects |= e.name == "objects" && e.type == DT_DIR;
      refs |= e.name == "refs" && e.type == DT_DIR;
    }
    if (head && objects && refs) return gitdir_at(fd->get(), path, "");
    const size_t first_pending = stack.size();
    for (auto& e : entries) {
      const std::string child = path == "/" ? "/" + e.name : path + "/" + e.name;
      if (claude_code_project_name(e.name)) claude_name(fd->get(), e.name, child);
      if (e.name == ".git") {
        dotgit(fd->get(), path, e.type);
        if (e.type == DT_DIR) continue;
      }
      if (e.type != DT_DIR) continue;
      if (depth + 1 > in_.max_depth) {
        stopped_at(child + " (deeper than " + std::to_string(in_.max_depth) + " levels)");
        unwalked_.push_back({fd, e.name, child, depth + 1});
        continue;
      }
      stack.push_back({fd, e.name, child, depth + 1});
    }
    // Popped from the back: the first name first. Only the subdirs are sorted (files are many).
    std::sort(stack.begin() + long(first_pending), stack.end(),
              [](const Pending& a, const Pending& b) { return a.name > b.name; });
  }

  static std::string identity(const struct stat& st) { return file_identity(st.st_dev, st.st_ino); }
  void claude_name(int dirfd, const std::string& name, const std::string& path) {
    struct stat st;
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      snap_.claude_names.emplace(path, "");
      return;
    }
    std::string id = identity(st);
    // A `.claude` dir that holds nothing but a `worktrees` dir (where `claude --worktree` puts its
    // git worktrees) and an empty `.cc-writes` dir (where Claude Code's own command sandbox stages
    // its rewrites of files) is one Claude Code reads no setting, command or hook from (what is in
    // a worktree is judged where it is, at its own depth). An allowlist: any other entry, or a
    // `.cc-writes` with anything in it, and the dir is judged as any new `.claude`. Marked (diff.cpp).
    if (S_ISDIR(st.st_mode) && name == ".claude") {
      UniqueFd d(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
      if (d) {
        const std::vector<Entry> es = list_dir(d.get(), buf_);
        bool inert = !es.empty();
        for (const Entry& e : es) {
          if (e.name == "worktrees" && e.type == DT_DIR) continue;
          if (e.name == ".cc-writes" && e.type == DT_DIR) {
            UniqueFd w(::openat(d.get(), ".cc-writes", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
            if (w && list_dir(w.get(), buf_).empty()) continue;
          }
          inert = false;
        }
        if (inert) id += kClaudeWorktreesOnly;
      }
    }
    snap_.claude_names.emplace(path, id);
  }

  void dotgit(int dirfd, const std::string& worktree, unsigned char type) {
    const std::string path = worktree + "/.git";
    if (type == DT_DIR) {
      UniqueFd g = open_dir(dirfd, ".git", false);
      if (g) gitdir_at(g.get(), path, worktree);
      return;
    }
    if (type != DT_REG && type != DT_LNK) return;
    Read r = read_file(dirfd, ".git", false);
    FileRecord rec;
    rec.role = Role::Pointer;
    rec.kind = r.kind;
    rec.link = r.link;
    rec.repo = path;
    if (type == DT_LNK) {
      rec.target = join(worktree, r.link);
    } else {
      rec.content = r.content.substr(0, 4096);
      rec.target = gitfile_target(r.content, worktree).value_or("");
    }
    snap_.files.emplace(path, rec);
    if (!rec.target.empty()) gitdir_path(rec.target, worktree);
  }

  void gitdir_path(const std::string& path, const std::string& worktree) {
    UniqueFd g = open_dir(AT_FDCWD, path, true);
    if (g) gitdir_at(g.get(), path, worktree);
  }

  void gitdir_at(int gfd, const std::string& gitdir, const std::string& worktree) {
    // Every work tree a gitdir was reached from, even when reached before without one (a
    // submodule's gitdir under modules/, then its work tree's `.git` file).
    if (!worktree.empty()) trees_.emplace(worktree, gitdir);
    if (!gitdirs_.insert(gitdir).second || late()) return;
    snap_.repos.push_back(gitdir);
    for (const auto& n : git_state_dir_names())
      runner_entry(gfd, n, gitdir + "/" + n, gitdir,
                   "git's in-progress operation state: git rebase/am/cherry-pick/revert --continue "
                   "would run what it lists");
    config_at(gfd, "config", gitdir + "/config", gitdir, worktree, 0);
    config_at(gfd, "config.worktree", gitdir + "/config.worktree", gitdir, worktree, 0);
    std::string common = gitdir;
    Read cd = read_file(gfd, "commondir", false);
    if (cd.exists) {
      FileRecord rec;
      rec.role = Role::Pointer;
      rec.kind = cd.kind;
      rec.link = cd.link;
      rec.content = cd.content.substr(0, 4096);
      rec.repo = gitdir;
      rec.target = commondir_target(cd.content, gitdir);
      snap_.files.emplace(gitdir + "/commondir", rec);
      common = rec.target;
      common_of_[gitdir] = common;
      if (common != gitdir) gitdir_path(common, worktree);
    }
    hooks_dir(common + "/hooks", gitdir, true);
    index_at(gfd, gitdir, worktree);
    linked_worktrees(gfd, gitdir);
    UniqueFd mods = open_dir(gfd, "modules", false);
    if (mods) modules(mods.get(), gitdir + "/modules", 0);
  }

  // The gitlinks an index names, judged by path: git enters each one that is populated, relative
  // to the work tree, without checking the path (it never writes one that leaves the tree).
  void index_at(int gfd, const std::string& gitdir, const std::string& worktree) {
    struct stat st;
    if (::fstatat(gfd, "index", &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    const std::string key = std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
                            std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
                            std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
    snap_.index_stats.emplace(gitdir, key);
    if (!in_.read_indexes) return;
    if (in_.known_indexes) {
      auto it = in_.known_indexes->find(gitdir);
      if (it != in_.known_indexes->end() && it->second == key) return;
    }
    BeneathEntry e = read_beneath(gfd, "index", kMaxIndex);
    if (e.kind == BeneathEntry::Missing) return;
    std::vector<std::string> links;
    const std::string why = e.kind == BeneathEntry::TooBig ? "larger than the audit reads (256 MiB)"
                            : e.kind != BeneathEntry::File ? "not a regular file"
                                                           : judge_index(gfd, e.text, &links);
    if (!why.empty()) snap_.bad_indexes.emplace(gitdir + "/index", why);
    if (worktree.empty()) return;
    for (const auto& l : links)
      if (snap_.gitlinks.size() < kMaxGitlinks) snap_.gitlinks.push_back(worktree + "/" + l);
  }

  // "" when every gitlink in the index (and in the shared index a split index names) stays in
  // the work tree.
  static std::string judge_index(int gfd, const std::string& text, std::vector<std::string>* found) {
    // The object name length is the repository's choice (SHA-1 or SHA-256): an index that reads
    // whole either way is judged both ways.
    std::vector<std::string> links;
    bool read = false;
    std::string err;
    for (size_t hash : {size_t(20), size_t(32)}) {
      IndexGitlinks g = index_gitlinks(text, hash);
      if (!g.error.empty()) {
        if (err.empty()) err = g.error;
        continue;
      }
      read = true;
      links.insert(links.end(), g.paths.begin(), g.paths.end());
      if (!g.shared.empty()) {
        BeneathEntry se = read_beneath(gfd, "sharedindex." + g.shared, kMaxIndex);
        if (se.kind == BeneathEntry::File) {
          IndexGitlinks sg = index_gitlinks(se.text, hash);
          if (!sg.error.empty()) return "its shared index: " + sg.error;
          links.insert(links.end(), sg.paths.begin(), sg.paths.end());
        } else if (se.kind != BeneathEntry::Missing) {
          return "its shared index is not a regular file blaude can read";
        }
      }
    }
    if (!read) return "not an index blaude can read (" + err + ")";
    for (const auto& l : links)
      if (!gitlink_path_ok(l)) return "names a nested repository outside its work tree: " + l;
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    *found = std::move(links);
    return "";
  }

  // worktrees/<id>/: a linked work tree's own gitdir (config.worktree, commondir).
  void linked_worktrees(int gfd, const std::string& gitdir) {
    UniqueFd wt = open_dir(gfd, "worktrees", false);
    if (!wt) return;
    for (const auto& e : list_dir(wt.get(), buf_)) {
      if (e.type != DT_DIR) continue;
      UniqueFd id = open_dir(wt.get(), e.name, false);
      if (!id) continue;
      Read back = read_file(id.get(), "gitdir", false);
      std::string tree = back.exists ? dirname_of(commondir_target(back.content, "/")) : "";
      gitdir_at(id.get(), gitdir + "/worktrees/" + e.name, tree);
    }
  }

  // modules/ holds submodule gitdirs, named by path (modules/a/b) and nested (modules/a/modules/c).
  void modules(int fd, const std::string& path, int depth) {
    for (const auto& e : list_dir(fd, buf_)) {
      if (e.type != DT_DIR || late()) continue;
      UniqueFd sub = open_dir(fd, e.name, false);
      if (!sub) continue;
      struct stat st;
      if (::fstatat(sub.get(), "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0) {
        gitdir_at(sub.get(), path + "/" + e.name, "");
      } else if (depth < 16) {
        modules(sub.get(), path + "/" + e.name, depth + 1);
      }
    }
  }

  void config_at(int dirfd, const std::string& name, const std::string& path, const std::string& gitdir,
                 const std::string& worktree, int depth) {
    if (snap_.files.count(path)) return;
    Read r = read_file(dirfd, name, false);
    if (!r.exists) return;
    FileRecord rec;
    rec.role = Role::Config;
    rec.kind = r.kind;
    rec.link = r.link;
    rec.content = std::move(r.content);
    rec.too_big = r.too_big;
    rec.mode = r.mode;
    rec.repo = gitdir;
    auto [it, fresh] = snap_.files.emplace(path, std::move(rec));
    if (!fresh || it->second.too_big) return;
    const ConfigRefs refs = config_refs(parse_git_config(it->second.content), path, worktree, gitdir, in_.home);
    for (const auto& inc : refs.includes) {
      if (depth >= 10) break;  // git's own include limit
      config_at(AT_FDCWD, inc, inc, gitdir, worktree, depth + 1);
    }
    for (const auto& d : refs.hook_dirs) {
      hooks_dir(d, gitdir, false);
      // Inside the work tree, the hooks run their tree's top-level files (husky's .husky/<hook>):
      // the managers those name count too, as in the sandbox's scan.
      if (!worktree.empty() && d != worktree && is_under(d, worktree) && !is_under(d, gitdir)) {
        const std::string rel = d.substr(worktree.size() + 1);
        tree_managers(worktree + "/" + rel.substr(0, rel.find('/')), gitdir);
      }
    }
  }

  // The managers the regular files directly in `top` name (read for that only, not recorded; at
  // most 200, no link followed).
  void tree_managers(const std::string& top, const std::string& gitdir) {
    auto [it, fresh] = tree_managers_.emplace(top, std::set<HookManager>{});
    if (fresh) {
      UniqueFd fd = open_dir(AT_FDCWD, top, false);
      if (!fd) return;
      auto entries = list_dir(fd.get(), buf_);
      if (entries.size() > 200) entries.resize(200);
      for (const auto& e : entries) {
        if (e.type != DT_REG) continue;
        Read r = read_file(fd.get(), e.name, false, false, false);  // its first kMaxContent bytes
        for (auto m : hook_managers(r.content)) it->second.insert(m);
      }
    }
    managers_[gitdir].insert(it->second.begin(), it->second.end());
  }

  // Every file git could run from a hooks dir; *.sample is git's inert template. A hooksPath
  // may name any dir (/tmp, say): at most kMaxHooks entries are read from one.
  // A hooks dir that is itself a symlink is a pointer: git follows it, so a link to a dir the
  // sandbox could fill (/tmp) runs code; the link is what gets moved aside. Through a link that
  // leads outside the audited roots no hook file is recorded: nothing there is the audit's to
  // move (it would be the user's files, wherever the link was aimed).
  void hooks_dir(const std::string& path, const std::string& gitdir, bool own) {
    (own ? snap_.own_hook_dirs : snap_.configured_hook_dirs).insert(path);
    if (!hookdirs_.insert(path).second) {
      const auto& m = dir_managers_[path];
      managers_[gitdir].insert(m.begin(), m.end());
      return;
    }
    if (hooks_link(path, gitdir)) return;
    UniqueFd fd = open_dir(AT_FDCWD, path, true);
    if (!fd) return;
    constexpr size_t kMaxHooks = 1000;
    auto entries = list_dir(fd.get(), buf_);
    // In byte order, so that the same dir gives the same record (which entries are read, which
    // are digested within the budget), whatever order the filesystem lists it in.
    std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.name < y.name; });
    if (entries.size() > kMaxHooks) {
      stopped_at(path + " (a hooks dir with " + std::to_string(entries.size()) + " entries; read " +
                 std::to_string(kMaxHooks) + ")");
      entries.resize(kMaxHooks);
    }
    for (const auto& e : entries) {
      if (e.type == DT_DIR || ends_with(e.name, ".sample")) continue;
      const std::string p = path + "/" + e.name;
      Read r = read_file(fd.get(), e.name, true, true, true, &digest_left_);
      if (!r.exists) continue;
      for (auto m : hook_managers(r.content)) {
        dir_managers_[path].insert(m);
        managers_[gitdir].insert(m);
      }
      FileRecord rec;
      rec.role = Role::Hook;
      rec.kind = r.kind;
      rec.link = r.link;
      rec.digest = r.digest;
      rec.mode = r.mode;
      rec.repo = gitdir;
      snap_.files.emplace(p, std::move(rec));
    }
  }

  // true when `path` is a symlink leading outside the roots (recorded as a pointer).
  bool hooks_link(const std::string& path, const std::string& gitdir) {
    UniqueFd parent(::open(dirname_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!parent) return false;
    const std::string name = path.substr(path.rfind('/') + 1);
    struct stat st;
    char link[4096];
    if (::fstatat(parent.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(st.st_mode)) return false;
    ssize_t n = ::readlinkat(parent.get(), name.c_str(), link, sizeof link);
    FileRecord rec;
    rec.role = Role::Pointer;
    rec.kind = FileKind::Symlink;
    rec.link = n > 0 ? std::string(link, size_t(n)) : std::string();
    rec.repo = gitdir;
    char buf[PATH_MAX];
    rec.target = ::realpath(path.c_str(), buf) ? std::string(buf) : join(dirname_of(path), rec.link);
    const bool inside = std::any_of(in_.roots.begin(), in_.roots.end(),
                                    [&](const std::string& root) { return is_under(rec.target, root); });
    snap_.files.emplace(path, std::move(rec));
    return !inside;
  }

  // What a runner reads (Role::Runner) at `name` in `dirfd`, as it is: a link is not followed
  // (moving it aside is enough), a dir is one digest over its tree (runner_tree).
  void runner_entry(int dirfd, const std::string& name, const std::string& path, const std::string& repo,
                    const std::string& reader) {
    struct stat st;
    if (snap_.files.count(path) || ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    FileRecord rec;
    rec.role = Role::Runner;
    rec.repo = repo;
    rec.reader = reader;
    rec.mode = st.st_mode & 07777;
    if (S_ISLNK(st.st_mode)) {
      rec.kind = FileKind::Symlink;
      char buf[4096];
      ssize_t n = ::readlinkat(dirfd, name.c_str(), buf, sizeof buf);
      if (n > 0) rec.link.assign(buf, size_t(n));
    } else if (S_ISREG(st.st_mode)) {
      Read r = read_file(dirfd, name, true, false, false, &digest_left_);
      rec.digest = r.digest;
    } else if (S_ISDIR(st.st_mode)) {
      rec.kind = FileKind::Dir;
      UniqueFd d = open_dir(dirfd, name, false);
      if (d) runner_tree(d.get(), rec);
      else rec.too_big = true;  // a dir it cannot read is not a dir it knows
    } else {
      rec.kind = FileKind::Other;
    }
    snap_.files.emplace(path, std::move(rec));
  }

  // One sha256 over a tree: each entry's relative path, type, mode, and a file's content (a file
  // over kMaxDigest: its size, inode and ctime) or a link's text, in byte order of names. An
  // explicit stack, no recursion. Limits (entries, depth, bytes read) reached: too_big, which
  // the comparison treats as changed.
  void runner_tree(int root, FileRecord& rec) {
    constexpr size_t kMaxEntries = 10000, kMaxBytes = size_t(64) << 20;
    constexpr int kMaxDepth = 16;
    Sha256 md;
    size_t entries = 0, bytes = 0;
    struct Dir {
      SharedFd fd;
      std::string rel;
      int depth;
    };
    std::vector<Dir> stack;
    stack.push_back({std::make_shared<UniqueFd>(::fcntl(root, F_DUPFD_CLOEXEC, 0)), "", 0});
    while (!stack.empty()) {
      Dir d = std::move(stack.back());
      stack.pop_back();
      if (!*d.fd) {
        rec.too_big = true;
        continue;
      }
      std::vector<Entry> list = list_dir(d.fd->get(), buf_);
      std::sort(list.begin(), list.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
      for (const auto& e : list) {
        if (++entries > kMaxEntries) {
          rec.too_big = true;
          break;
        }
        const std::string rel = d.rel + "/" + e.name;
        struct stat st;
        if (::fstatat(d.fd->get(), e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        std::string line = rel + '\0' + std::to_string(st.st_mode) + '\0';
        if (S_ISREG(st.st_mode)) {
          if (st.st_size > kMaxDigest || bytes + size_t(st.st_size) > kMaxBytes) {
            line += large_identity(st);
          } else {
            Read r = read_file(d.fd->get(), e.name, true, false, false, &digest_left_);
            bytes += size_t(st.st_size);
            line += r.kind == FileKind::File ? r.digest : "changed while read";
          }
        } else if (S_ISLNK(st.st_mode)) {
          char buf[4096];
          ssize_t n = ::readlinkat(d.fd->get(), e.name.c_str(), buf, sizeof buf);
          if (n > 0) line.append(buf, size_t(n));
        } else if (S_ISDIR(st.st_mode)) {
          if (d.depth + 1 > kMaxDepth) {
            rec.too_big = true;
          } else {
            stack.push_back({std::make_shared<UniqueFd>(open_dir(d.fd->get(), e.name, false)), rel, d.depth + 1});
          }
        }
        md.update(line);
        md.update(std::string_view("\n", 1));
      }
      if (rec.too_big && entries > kMaxEntries) break;
    }
    rec.digest = md.hex();
  }

  // The config of the hook managers the hooks run, in each work tree (common/git_runners.hpp):
  // a gitdir's managers are those of its hooks dirs and of its common dir's.
  void manager_configs() {
    for (const auto& [tree, gitdir] : trees_) {
      if (late()) return;
      std::set<HookManager> ms = managers_[gitdir];
      auto c = common_of_.find(gitdir);
      if (c != common_of_.end()) ms.insert(managers_[c->second].begin(), managers_[c->second].end());
      if (ms.empty()) continue;
      UniqueFd top = open_dir(AT_FDCWD, tree, false);
      if (!top) continue;
      for (auto m : ms) {
        const std::string reader = std::string(manager_name(m)) + "'s config, which the hooks of " + gitdir +
                                   " run: git would run the commands in it";
        for (const auto& f : manager_files(m)) {
          const auto slash = f.rel.find('/');
          if (slash == std::string::npos) {
            runner_entry(top.get(), f.rel, tree + "/" + f.rel, gitdir, reader);
          } else {
            UniqueFd sub = open_dir(top.get(), f.rel.substr(0, slash), false);
            if (sub) runner_entry(sub.get(), f.rel.substr(slash + 1), tree + "/" + f.rel, gitdir, reader);
          }
        }
      }
    }
  }

  // Below where the walk stopped: every `.git` entry and bare-shaped dir, by name only (nothing is
  // read or followed), with its own time budget; no depth limit (an explicit stack, no recursion).
  void sweep() {
    const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(in_.sweep_seconds));
    std::vector<Pending> stack = std::move(unwalked_);
    while (!stack.empty()) {
      if (Clock::now() >= end) {
        snap_.swept = false;
        return;
      }
      Pending p = std::move(stack.back());
      stack.pop_back();
      auto dfd = std::make_shared<UniqueFd>(open_dir(p.parent->get(), p.name, false));
      if (!*dfd) continue;
      std::vector<Entry> entries = list_dir(dfd->get(), buf_);
      bool head = false, objects = false, refs = false;
      for (const auto& e : entries) {
        head |= e.name == "HEAD" && e.type == DT_REG;
        objects |= e.name == "objects" && e.type == DT_DIR;
        refs |= e.name == "refs" && e.type == DT_DIR;
      }
      if (head && objects && refs) {
        snap_.unchecked.insert(p.path);
        continue;
      }
      for (auto& e : entries) {
        if (claude_code_project_name(e.name)) claude_name(dfd->get(), e.name, p.path + "/" + e.name);
        if (e.name == ".git") {
          snap_.unchecked.insert(p.path + "/.git");
          continue;
        }
        if (e.type == DT_DIR) stack.push_back({dfd, e.name, p.path + "/" + e.name, p.depth + 1});
      }
    }
  }

  const WalkInput& in_;
  std::vector<Pending> unwalked_;
  Clock::time_point start_, deadline_;
  uint64_t digest_left_ = in_.digest_budget;
  Snapshot snap_;
  std::set<std::string> gitdirs_, hookdirs_;
  std::set<std::pair<std::string, std::string>> trees_;           // (work tree, its gitdir)
  std::map<std::string, std::string> common_of_;                   // gitdir -> its commondir
  std::map<std::string, std::set<HookManager>> managers_, dir_managers_;  // by gitdir, by hooks dir
  std::map<std::string, std::set<HookManager>> tree_managers_;            // by hooks tree top dir
  DirBuffer buf_ = DirBuffer(64 * 1024);  // list_dir's getdents buffer
  LeafCheck leaf_dirs_;
};

}  // namespace

std::string file_identity(unsigned long long dev, unsigned long long ino) {
  return std::to_string(dev) + ":" + std::to_string(ino);
}

Snapshot take_snapshot(const WalkInput& in, const std::vector<PriorWalk>& prior) { return Walker(in).run(prior); }

}  // namespace blaude::audit
