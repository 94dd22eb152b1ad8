#include "sandbox/bwrap/probe/worktree_git.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>

#include "common/file_io.hpp"
#include "common/git_config.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

// git's pointer files are one short line; anything larger is not one.
constexpr size_t kMaxPointer = 4096;
// A submodule's config (its core.worktree is the back-pointer): git writes a few lines there.
constexpr size_t kMaxConfig = 64 * 1024;

// A submodule's gitdir: below a `modules` dir of its superproject's git dir
// (<super>/modules/<name>, names may hold slashes; nested: .../modules/a/modules/b).
bool submodule_shaped(const std::string& gitdir) {
  const size_t at = gitdir.rfind("/modules/");
  return at != std::string::npos && at > 0 && gitdir.size() > at + 9;
}

// The last core.worktree of a config, as git reads it; "" when none, or the file is not one git
// reads whole.
std::string core_worktree(const std::string& text) {
  const ParsedConfig cfg = blaude::parse_git_config(text);
  if (cfg.error_line) return {};
  std::string v;
  for (const auto& e : cfg.entries)
    if (e.key == "core.worktree") v = e.value.value_or("");
  return v;
}

// Where secrets live under $HOME (the same list plan_exe.cpp keeps for a program's dir): a
// repository there, or one that holds them, is not bound writable.
const char* const kSecretDirs[] = {".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
                                   ".local/share/keyrings", ".config/gcloud", ".config/gh", ".pki",
                                   ".netrc", ".git-credentials", ".npmrc", ".pypirc"};

// The one line of a pointer file: `prefix` then a path, one optional trailing newline, nothing
// else (no second line, no NUL). "" when it is not that.
std::string pointer_line(const std::string& text, const std::string& prefix) {
  std::string s = text;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (!s.empty() && s.back() == '\r') s.pop_back();
  if (s.compare(0, prefix.size(), prefix) != 0) return {};
  s.erase(0, prefix.size());
  if (s.empty() || s.find_first_of(std::string("\n\r\0", 3)) != std::string::npos) return {};
  return s;
}

bool is_type(int dirfd, const char* name, mode_t type) {
  struct stat st;
  return ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

// A dir reached without crossing a symlink, owned by `uid`: its descriptor, or invalid with why.
UniqueFd owned_dir(const std::string& path, uid_t uid, std::string& why) {
  UniqueFd fd = open_dir_no_symlinks(path);
  if (!fd) {
    why = errno == ELOOP ? path + " is reached through a symlink" : path + " cannot be opened";
    return fd;
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    why = path + " is not a directory";
    return UniqueFd();
  }
  if (st.st_uid != uid) {
    why = path + " is not yours";
    return UniqueFd();
  }
  return fd;
}

std::string too_broad(const std::string& common, const std::string& home, const std::string& home_real) {
  if (common == "/") return "it is /";
  for (const char* sys : {"/proc", "/sys", "/dev", "/run", "/etc", "/usr"})
    if (is_under(common, sys)) return "it lies in " + std::string(sys);
  for (const std::string& h : {home, home_real}) {
    if (h.empty()) continue;
    if (is_under(h, common)) return "it is your home directory or a parent of it";
    for (const char* s : kSecretDirs) {
      const std::string secret = h + "/" + s;
      if (is_under(common, secret) || is_under(secret, common)) return "it would expose " + secret;
    }
  }
  return {};
}

}  // namespace

WorktreeGit probe_worktree_git(const std::string& cwd, uid_t uid, const std::string& home,
                               const std::string& home_real) {
  WorktreeGit out;
  if (cwd.empty() || cwd[0] != '/') return out;
  UniqueFd ws = open_dir_no_symlinks(cwd);
  if (!ws) return out;
  const BeneathEntry dotgit = read_beneath(ws.get(), ".git", kMaxPointer);
  // A `.git` dir, none, or a symlink (the scan protects what it leads to): not a linked worktree's file.
  if (dotgit.kind == BeneathEntry::Missing || dotgit.kind == BeneathEntry::Symlink ||
      dotgit.kind == BeneathEntry::Other)
    return out;
  const std::string self = cwd + "/.git";
  auto refuse = [&](const std::string& why) {
    out = {};
    out.worktree = cwd;
    out.refused = self + " is not followed (" + why + "): its repository is not reachable in the sandbox, so git "
                  "commands there fail. Run blaude in the main checkout, or recreate the worktree with `git worktree add`.";
    return out;
  };
  if (dotgit.kind != BeneathEntry::File) return refuse("it is larger than a gitdir pointer or cannot be read");
  const std::string named = pointer_line(dotgit.text, "gitdir: ");
  if (named.empty()) return refuse("it is not one `gitdir: PATH` line");
  const std::string gitdir = join(cwd, named);
  // git's layout for a linked worktree: <common>/worktrees/<name>; for a submodule, its own
  // gitdir below the superproject's modules/.
  const bool linked = basename_of(dirname_of(gitdir)) == "worktrees";
  const bool submodule = !linked && submodule_shaped(gitdir);
  const std::string common = linked ? dirname_of(dirname_of(gitdir)) : gitdir;
  if ((!linked && !submodule) || (linked && common == gitdir))
    return refuse(gitdir + " is neither a linked worktree's gitdir (<repository>/worktrees/<name>) nor a submodule's "
                  "(<repository>/modules/<name>)");
  if (std::string b = too_broad(common, home, home_real); !b.empty()) return refuse(common + ": " + b);
  if (is_under(cwd, common)) return refuse(common + " contains the workspace");
  if (is_under(common, cwd)) return refuse(common + " lies in the workspace itself");
  std::string why;
  UniqueFd g = owned_dir(gitdir, uid, why);
  if (!g) return refuse(why);
  if (!is_type(g.get(), "HEAD", S_IFREG)) return refuse(gitdir + " has no HEAD");
  if (linked) {
    // git's back-pointer: the worktree's entry names this very `.git`, so the repository itself
    // says this directory is its worktree (a `.git` file alone is anyone's claim).
    const BeneathEntry back = read_beneath(g.get(), "gitdir", kMaxPointer);
    const std::string back_line = back.kind == BeneathEntry::File ? pointer_line(back.text, "") : "";
    if (back_line.empty() || join(gitdir, back_line) != self)
      return refuse(gitdir + "/gitdir does not name " + self);
    const BeneathEntry cd = read_beneath(g.get(), "commondir", kMaxPointer);
    const std::string cd_line = cd.kind == BeneathEntry::File ? pointer_line(cd.text, "") : "";
    if (cd_line.empty() || join(gitdir, cd_line) != common)
      return refuse(gitdir + "/commondir does not lead to " + common);
  } else {
    // A submodule's back-pointer is its config's core.worktree (relative to the gitdir); it has
    // no commondir (one would send git's writes to another repository).
    if (read_beneath(g.get(), "commondir", kMaxPointer).kind != BeneathEntry::Missing)
      return refuse(gitdir + " has a commondir: not a submodule's own gitdir");
    const BeneathEntry cfg = read_beneath(g.get(), "config", kMaxConfig);
    const std::string wt = cfg.kind == BeneathEntry::File ? core_worktree(cfg.text) : "";
    if (wt.empty() || join(gitdir, wt) != cwd) return refuse(gitdir + "/config's core.worktree does not name " + cwd);
  }
  UniqueFd c = linked ? owned_dir(common, uid, why) : std::move(g);
  if (!c) return refuse(why);
  if (!is_type(c.get(), "HEAD", S_IFREG) || !is_type(c.get(), "objects", S_IFDIR) || !is_type(c.get(), "refs", S_IFDIR))
    return refuse(common + " is not a git directory (HEAD, objects, refs)");
  out.worktree = cwd;
  out.submodule = submodule;
  out.gitdir = gitdir;
  out.common = common;
  if (UniqueFd wts(linked ? ::openat(c.get(), "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1); wts) {
    if (DIR* d = ::fdopendir(wts.get())) {
      wts.release();
      while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n == "." || n == ".." || common + "/worktrees/" + n == gitdir) continue;
        if (is_type(::dirfd(d), n.c_str(), S_IFDIR)) out.others.push_back(common + "/worktrees/" + n);
      }
      ::closedir(d);
    }
  }
  std::sort(out.others.begin(), out.others.end());
  return out;
}

std::vector<WorktreeGit> probe_workspace_gits(const std::string& cwd, uid_t uid, const std::string& home,
                                              const std::string& home_real) {
  std::vector<WorktreeGit> out;
  WorktreeGit own = probe_worktree_git(cwd, uid, home, home_real);
  if (!own.common.empty() || !own.refused.empty()) out.push_back(std::move(own));
  if (cwd.empty() || cwd[0] != '/') return out;
  UniqueFd ws = open_dir_no_symlinks(cwd);
  if (!ws) return out;
  std::vector<std::string> names;
  const int dfd = ::openat(ws.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = dfd < 0 ? nullptr : ::fdopendir(dfd);
  if (!d && dfd >= 0) ::close(dfd);
  if (d) {
    size_t seen = 0;
    while (const dirent* e = ::readdir(d)) {
      if (++seen > kMaxNestedEntries) break;
      const std::string n = e->d_name;
      if (n == "." || n == ".." || n == ".git") continue;
      if (!is_type(ws.get(), n.c_str(), S_IFDIR)) continue;
      // Only a dir whose `.git` is a `gitdir:` file naming a place outside the workspace (one in
      // it is shown by the workspace bind already: nothing to bind, nothing to warn about).
      UniqueFd sub(::openat(ws.get(), n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
      if (!sub) continue;
      const BeneathEntry dg = read_beneath(sub.get(), ".git", kMaxPointer);
      if (dg.kind != BeneathEntry::File) continue;
      const std::string named = pointer_line(dg.text, "gitdir: ");
      if (named.empty() || is_under(join(cwd + "/" + n, named), cwd)) continue;
      names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    if (out.size() >= kMaxNestedGit) break;
    WorktreeGit w = probe_worktree_git(cwd + "/" + n, uid, home, home_real);
    // Its repository in the workspace (a worktree pointing at a main checkout beside it): shown already.
    if (!w.common.empty() && is_under(w.common, cwd)) continue;
    if (!w.common.empty() || !w.refused.empty()) out.push_back(std::move(w));
  }
  return out;
}

}  // namespace blaude::sandbox::bwrap
