#include "sandbox/workspace/repo_scan.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "common/git_runners.hpp"
#include "sandbox/workspace/git_config.hpp"

namespace blaude::sandbox::workspace {

namespace {

std::string normalize(const std::string& p) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string c = p.substr(i, j - i);
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!c.empty() && c != ".") {
      parts.push_back(c);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& c : parts) out += "/" + c;
  return out.empty() ? "/" : out;
}
std::string join(const std::string& base, const std::string& rel) {
  return normalize(!rel.empty() && rel[0] == '/' ? rel : base + "/" + rel);
}
std::string dirname_of(const std::string& p) {
  auto k = p.rfind('/');
  return k == 0 || k == std::string::npos ? "/" : p.substr(0, k);
}
bool under(const std::string& p, const std::string& root) {
  return p.size() > root.size() && p.compare(0, root.size(), root) == 0 && (root == "/" || p[root.size()] == '/');
}
std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t k = s.find_first_not_of(" \t");
  return k == std::string::npos ? "" : s.substr(k);
}

constexpr unsigned kDir = S_IFDIR, kReg = S_IFREG, kLnk = S_IFLNK;

struct Scanner {
  GitFs& fs;
  const GlobalGitConfig& global;
  std::string home;
  GitScan out;
  std::map<std::string, HostProtection> prot;
  std::set<std::string> seen;

  void protect(const std::string& path, Guard g, const std::string& why) { prot.emplace(path, HostProtection{path, g, why}); }
  void warn(const std::string& w) {
    if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end()) out.warnings.push_back(w);
  }

  // A file git reads: read-only; a symlink there is followed by git, so its target is.
  // Returns the path git ends up reading ("" when missing).
  std::string file(const std::string& path, const std::string& why) {
    Identity id = fs.lstat(path);
    if (id.type == kReg) {
      protect(path, Guard::ReadOnly, why);
      return path;
    }
    if (id.type == kLnk) {
      std::string real = fs.realpath(path);
      warn(path + " is a symlink (" + why + "): its target is protected, the link itself can be replaced");
      if (!real.empty() && fs.lstat(real).type == kReg) {
        protect(real, Guard::ReadOnly, why);
        return real;
      }
    }
    return {};
  }
  // A dir of scripts git runs: read-only, or kept empty when missing (its parent must exist).
  void dir(const std::string& path, const std::string& why) {
    Identity id = fs.lstat(path);
    if (id.type == kDir) {
      protect(path, Guard::ReadOnly, why);
    } else if (id.type == 0 && fs.lstat(dirname_of(path)).type == kDir) {
      protect(path, Guard::EmptyDir, why);
    } else if (id.type == kLnk) {
      std::string real = fs.realpath(path);
      warn(path + " is a symlink (" + why + "): its target is protected, the link itself can be replaced");
      if (!real.empty() && fs.lstat(real).type == kDir) protect(real, Guard::ReadOnly, why);
    }
  }

  // What a runner reads (git's operation state, a hook manager's config): read-only when present
  // (a symlink: its target), nothing when missing. No empty placeholder: an empty rebase-merge/
  // tells git a rebase is in progress, an empty config is a config. A new one is the audit's.
  void present(const std::string& path, const std::string& why) {
    Identity id = fs.lstat(path);
    if (id.type == kDir || id.type == kReg) {
      protect(path, Guard::ReadOnly, why);
    } else if (id.type == kLnk) {
      std::string real = fs.realpath(path);
      warn(path + " is a symlink (" + why + "): its target is protected, the link itself can be replaced");
      unsigned t = real.empty() ? 0 : fs.lstat(real).type;
      if (t == kDir || t == kReg) protect(real, Guard::ReadOnly, why);
    }
  }

  // git's in-progress operation state of one gitdir (common/git_runners.hpp).
  void state(const std::string& gitdir) {
    for (const auto& n : git_state_dir_names())
      present(gitdir + "/" + n, n + " of " + gitdir + " (git runs what it lists at --continue)");
  }

  // The hook managers the scripts of a hooks dir run (their text names them). At most 200
  // entries are read; a symlinked hook is read through its link, as git runs it.
  void managers_in(const std::string& dir, std::set<HookManager>& out) {
    const unsigned t = fs.lstat(dir).type;
    const std::string d = t == kLnk ? fs.realpath(dir) : t == kDir ? dir : std::string();
    if (d.empty()) return;
    auto names = fs.list(d);
    if (names.size() > 200) {
      warn(dir + " holds " + std::to_string(names.size()) + " entries: the hook managers of the first 200 are protected");
      names.resize(200);
    }
    for (const auto& n : names) {
      if (n.size() > 7 && n.compare(n.size() - 7, 7, ".sample") == 0) continue;
      std::string p = d + "/" + n;
      if (fs.lstat(p).type == kLnk) p = fs.realpath(p);
      if (p.empty()) continue;
      if (auto t = fs.read(p))
        for (auto m : hook_managers(*t)) out.insert(m);
    }
  }

  // The config files of those managers in the work tree the hooks run in.
  void manager_configs(const std::string& wt, const std::set<HookManager>& ms, const std::string& gitdir) {
    if (wt.empty()) return;
    for (auto m : ms)
      for (const auto& f : manager_files(m))
        present(wt + "/" + f.rel, std::string(manager_name(m)) + " config, run by the hooks of " + gitdir);
  }

  // A config file and, recursively, what it includes. Facts of all of them are merged: every
  // hooksPath seen counts (a superset of the effective one is safe).
  void config(const std::string& path, const std::string& why, std::vector<std::string>& hooks, bool& wt_cfg,
              std::string* core_wt, int depth = 0) {
    std::string real = file(path, why);
    if (real.empty() || depth > 10) return;
    auto text = fs.read(real);
    if (!text) return;
    GitConfigFacts f = git_config_facts(parse_git_config(*text));
    if (f.hooks_path_set) hooks.push_back(f.hooks_path);
    wt_cfg = wt_cfg || f.worktree_config;
    if (core_wt && !f.worktree.empty()) *core_wt = f.worktree;
    for (const auto& inc : f.includes) {
      std::string t = inc.rfind("~/", 0) == 0 ? home + inc.substr(1) : join(dirname_of(path), inc);
      if (fs.lstat(t).type == 0) {
        warn(t + " is included by " + path + " but missing: it could be created (the post-session audit checks it)");
        continue;
      }
      // Through its real path: a mount needs one without symlinks (a dotfile manager's links).
      std::string real = fs.realpath(t);
      config(real.empty() ? t : real, "included by " + path, hooks, wt_cfg, nullptr, depth + 1);
    }
  }

  // The hook scripts' tree: the top-level dir of the worktree that holds hooksPath (its siblings
  // are what the hooks run), or hooksPath itself when it lies outside the worktree.
  // `managers`: what the scripts there run (the hooks dir's and, inside the worktree, its tree's
  // top-level files: husky's .husky/<hook>).
  void hooks_tree(std::string hp, const std::string& base, const std::string& worktree, const std::string& why,
                  std::set<HookManager>& managers) {
    if (hp.rfind("~/", 0) == 0) hp = home + hp.substr(1);
    std::string abs = join(base, hp);
    if (worktree.empty() || abs != worktree) managers_in(abs, managers);
    if (!worktree.empty() && under(abs, worktree)) {
      std::string rel = abs.substr(worktree.size() + 1);
      abs = worktree + "/" + rel.substr(0, rel.find('/'));
      managers_in(abs, managers);
    } else if (!worktree.empty() && abs == worktree) {
      warn("core.hooksPath of " + worktree + " is the worktree itself: its hooks cannot be protected");
      return;
    }
    dir(abs, why);
  }

  void repo(const std::string& gitdir, const std::string& worktree, const std::string& via, int depth = 0) {
    if (depth > 16 || !seen.insert(gitdir).second) return;
    std::string common = gitdir;
    std::string cd = gitdir + "/commondir";
    if (!file(cd, "commondir pointer of " + gitdir).empty()) {
      if (auto t = fs.read(cd)) {
        std::string real = fs.realpath(join(gitdir, trim(*t)));
        if (!real.empty()) common = real;
      }
    }
    std::vector<std::string> hooks = global.hooks_paths;
    bool wt_cfg = false;
    std::string core_wt;
    config(common + "/config", "config of " + common, hooks, wt_cfg, &core_wt);
    std::string wt = worktree;
    if (wt.empty() && !core_wt.empty()) wt = join(gitdir, core_wt);
    if (wt_cfg) {
      std::string wc = gitdir + "/config.worktree";
      if (fs.lstat(wc).type == 0)
        warn(wc + " is missing while extensions.worktreeConfig is on: it could be created (the post-session audit checks it)");
      else
        config(wc, "worktree config of " + gitdir, hooks, wt_cfg, nullptr);
    }
    out.repos.push_back({gitdir, common, wt, via});
    dir(common + "/hooks", "hooks of " + common);
    std::set<HookManager> managers;
    managers_in(common + "/hooks", managers);
    for (const auto& hp : hooks) hooks_tree(hp, wt.empty() ? gitdir : wt, wt, "core.hooksPath of " + gitdir, managers);
    manager_configs(wt, managers, gitdir);
    state(gitdir);
    if (common != gitdir) repo(common, {}, "commondir of " + gitdir, depth + 1);
    worktrees(common, hooks);
    modules(common + "/modules", depth, 0);
  }

  // Linked worktrees: their pointers, their config.worktree, and every hooksPath (the common
  // config's too) relative to each worktree's own root.
  void worktrees(const std::string& common, const std::vector<std::string>& common_hooks) {
    std::string base = common + "/worktrees";
    if (fs.lstat(base).type != kDir) return;
    for (const auto& n : fs.list(base)) {
      std::string w = base + "/" + n;
      if (fs.lstat(w).type != kDir) continue;
      file(w + "/commondir", "commondir pointer of " + w);
      std::string gd = file(w + "/gitdir", "worktree pointer of " + w);
      std::string wt;
      if (!gd.empty())
        if (auto t = fs.read(gd)) wt = dirname_of(normalize(trim(*t)));
      std::vector<std::string> hooks = common_hooks;
      bool wt_cfg = false;
      if (fs.lstat(w + "/config.worktree").type != 0) config(w + "/config.worktree", "worktree config of " + w, hooks, wt_cfg, nullptr);
      std::set<HookManager> managers;
      managers_in(common + "/hooks", managers);
      for (const auto& hp : hooks) hooks_tree(hp, wt.empty() ? w : wt, wt, "core.hooksPath of " + w, managers);
      manager_configs(wt, managers, w);
      state(w);
    }
  }

  // Submodule gitdirs: a dir under modules/ holding a config or HEAD is a gitdir (with modules of
  // its own); any other dir is a component of a nested submodule name.
  void modules(const std::string& base, int depth, int level) {
    if (level > 8 || fs.lstat(base).type != kDir) return;
    for (const auto& n : fs.list(base)) {
      std::string sub = base + "/" + n;
      if (fs.lstat(sub).type != kDir) continue;
      if (fs.lstat(sub + "/config").type != 0 || fs.lstat(sub + "/HEAD").type != 0) {
        repo(sub, {}, "submodule gitdir", depth + 1);
      } else {
        modules(sub, depth, level + 1);
      }
    }
  }

  void found(const FoundGit& g) {
    std::string wt = dirname_of(g.path);
    switch (g.kind) {
      case FoundGit::Dir: repo(g.path, wt, ".git dir"); break;
      case FoundGit::Bare: repo(g.path, {}, "bare repository"); break;
      case FoundGit::File: {
        // "gitdir: PATH": rewriting it would point git at a gitdir the agent planted.
        if (file(g.path, "gitdir pointer of " + wt).empty()) return;
        auto t = fs.read(g.path);
        if (!t || t->rfind("gitdir:", 0) != 0) return;
        std::string real = fs.realpath(join(wt, trim(t->substr(7))));
        if (!real.empty()) repo(real, wt, ".git file");
        break;
      }
      case FoundGit::Symlink: {
        warn(g.path + " is a symlink: the repository it leads to is protected, the link itself can be re-pointed (the post-session audit checks it)");
        std::string real = fs.realpath(g.path);
        if (!real.empty() && fs.lstat(real).type == kDir) repo(real, wt, ".git symlink");
        break;
      }
    }
  }
};

class HostGitFs : public GitFs {
public:
  Identity lstat(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return {};
    return {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(st.st_mode & S_IFMT)};
  }
  std::optional<std::string> read(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return std::nullopt;
    }
    std::string out;
    char buf[8192];
    ssize_t n;
    while (out.size() < (1u << 20) && (n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
    ::close(fd);
    return out;
  }
  std::string realpath(const std::string& path) override {
    char buf[PATH_MAX];
    return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
  }
  std::vector<std::string> list(const std::string& dir) override {
    std::vector<std::string> out;
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return out;
    DIR* d = ::fdopendir(fd);
    if (!d) {
      ::close(fd);
      return out;
    }
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

GitFs& host_git_fs() {
  static HostGitFs fs;
  return fs;
}

GlobalGitConfig read_global_git_config(GitFs& fs, const std::string& home, const std::string& xdg) {
  GlobalGitConfig g;
  std::vector<std::string> files = {"/etc/gitconfig", (xdg.empty() ? home + "/.config" : xdg) + "/git/config",
                                    home + "/.gitconfig"};
  std::set<std::string> seen;
  std::function<void(const std::string&, int)> read = [&](const std::string& path, int depth) {
    if (depth > 10 || !seen.insert(path).second) return;
    std::string real = fs.realpath(path);
    auto text = fs.read(real.empty() ? path : real);
    if (!text) return;
    g.files.push_back(real.empty() ? path : real);  // mounts need the path without symlinks
    GitConfigFacts f = git_config_facts(parse_git_config(*text));
    if (f.hooks_path_set) g.hooks_paths.push_back(f.hooks_path);
    for (const auto& inc : f.includes)
      read(inc.rfind("~/", 0) == 0 ? home + inc.substr(1) : join(dirname_of(path), inc), depth + 1);
  };
  for (const auto& f : files) read(f, 0);
  return g;
}

GitScan scan_repos(GitFs& fs, const std::vector<FoundGit>& found, const GlobalGitConfig& global, const std::string& home) {
  Scanner s{fs, global, home, {}, {}, {}};
  // A global config file (or one it includes) that lies in a writable place is as good as the
  // repository's own: the planner keeps the ones a sandbox path can write.
  for (const auto& f : global.files) s.file(f, "global git config");
  for (const auto& g : found) s.found(g);
  for (auto& [path, p] : s.prot) s.out.protect.push_back(std::move(p));
  return std::move(s.out);
}

}  // namespace blaude::sandbox::workspace
