#include "sandbox/bwrap/scan.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common/file_io.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

Kind kind_of(mode_t m) {
  if (S_ISREG(m)) return Kind::File;
  if (S_ISDIR(m)) return Kind::Dir;
  if (S_ISLNK(m)) return Kind::Symlink;
  if (S_ISSOCK(m)) return Kind::Socket;
  return Kind::Other;
}

std::string real_of(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string read_small(const std::string& path, size_t cap = 64 * 1024) {
  return read_small_file(path, cap, Follow::No).value_or("");
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.pop_back();
  size_t i = s.find_first_not_of(" \t");
  return i == std::string::npos ? "" : s.substr(i);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Walker {
  std::string root;
  WorkspaceScan out;
  std::set<std::string> seen_gitdirs;

  // The walk never goes through a link and root is canonical, so a non-link's real path is its
  // path: realpath (a syscall per component) only for links.
  PathFact fact(const std::string& rel) {
    std::string p = root + "/" + rel;
    struct stat st;
    PathFact pf;
    if (::lstat(p.c_str(), &st) != 0) return pf;
    if (S_ISLNK(st.st_mode)) return probe_path(p);
    pf.lkind = pf.kind = kind_of(st.st_mode);
    pf.real = std::move(p);
    return pf;
  }

  // core.hooksPath as a workspace path. A missing one is guarded at its shallowest missing
  // component, so its parents cannot be created either.
  void hooks_path(GitDir& g, const std::string& worktree_rel) {
    std::string v = parse_hooks_path(read_small(root + "/" + g.rel + "/config"));
    if (v.empty() || v[0] == '~') return;
    std::string abs = join(worktree_rel.empty() ? root : root + "/" + worktree_rel, v);
    if (!is_under(abs, root) || abs == root) return;
    std::string rel = relative_to(abs, root), cur;
    size_t i = 0;
    while (i <= rel.size()) {
      size_t j = rel.find('/', i);
      if (j == std::string::npos) j = rel.size();
      cur = rel.substr(0, j);
      PathFact pf = fact(cur);
      if (pf.lkind != Kind::Dir || j == rel.size()) {
        g.hooks_path = cur;
        g.hooks_path_fact = pf;
        return;
      }
      i = j + 1;
    }
  }

  void gitdir(const std::string& rel, bool worktree_dotgit, int depth = 0) {
    if (!seen_gitdirs.insert(rel).second || depth > 8) return;
    GitDir g;
    g.rel = rel;
    g.config = fact(rel + "/config");
    g.hooks = fact(rel + "/hooks");
    if (worktree_dotgit) {
      std::string wt = dirname_of(rel);
      hooks_path(g, wt == "." ? "" : wt);
    }
    out.gitdirs.push_back(std::move(g));
    modules(rel + "/modules", depth);
  }

  // Submodule gitdirs: a dir under modules/ holding a config file is a gitdir root (it may have
  // modules of its own); any other dir is a path component of a nested submodule name.
  void modules(const std::string& rel, int depth) {
    DIR* d = ::opendir((root + "/" + rel).c_str());
    if (!d) return;
    std::vector<std::string> subs;
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      if (fact(rel + "/" + n).lkind == Kind::Dir) subs.push_back(n);
    }
    ::closedir(d);
    std::sort(subs.begin(), subs.end());
    for (const auto& n : subs) {
      std::string sub = rel + "/" + n;
      if (fact(sub + "/config").lkind == Kind::File) {
        gitdir(sub, false, depth + 1);
      } else if (depth < 8) {
        modules(sub, depth + 1);
      }
    }
  }

  // A .git file (worktree or submodule checkout): "gitdir: PATH". Only a gitdir inside the
  // workspace is writable from the sandbox, so only that one needs guarding.
  void gitfile(const std::string& rel) {
    std::string text = read_small(root + "/" + rel, 4096);
    if (text.rfind("gitdir:", 0) != 0) return;
    std::string target = trim(text.substr(7));
    std::string real = real_of(join(root + "/" + dirname_of(rel), target));
    if (!real.empty() && is_under(real, root) && real != root) gitdir(relative_to(real, root), false);
  }

  void walk(const std::string& rel, int depth) {
    std::string dir = rel.empty() ? root : root + "/" + rel;
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    // Only names that matter are kept: most entries of a big tree are plain files, and at the
    // last level only links count. (Sorted for a stable plan.)
    std::vector<std::pair<std::string, unsigned char>> entries;
    const auto& names = protected_file_names();
    while (dirent* e = ::readdir(d)) {
      const char* n = e->d_name;
      unsigned char type = e->d_type;
      if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
      if (type == DT_REG || (type == DT_DIR && depth == 4)) {
        if (depth > 3 || n[0] != '.') continue;  // every protected name starts with a dot
        if (type == DT_REG && std::find(names.begin(), names.end(), n) == names.end() && std::strcmp(n, ".git") != 0 &&
            !is_env_file_name(n))
          continue;
      }
      entries.emplace_back(n, type);
    }
    ::closedir(d);
    std::sort(entries.begin(), entries.end());
    for (auto& [name, type] : entries) {
      std::string r = rel.empty() ? name : rel + "/" + name;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::lstat((root + "/" + r).c_str(), &st) != 0) continue;
        type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type == DT_LNK) {
        char buf[PATH_MAX];
        ssize_t n = ::readlink((root + "/" + r).c_str(), buf, sizeof buf - 1);
        if (n > 0) {
          std::string t = join(dir, std::string(buf, size_t(n)));
          std::string real = real_of(t);
          out.links.push_back({r, real.empty() ? t : real});
        }
      }
      bool special = name == ".git" || name == ".vscode" || name == ".idea" ||
                     std::find(names.begin(), names.end(), name) != names.end() ||
                     (type != DT_DIR && is_env_file_name(name));
      if (special && depth <= 3) {
        PathFact pf = fact(r);
        out.hits.emplace_back(r, pf);
        if (name == ".git") {
          if (pf.lkind == Kind::Dir) gitdir(r, true);
          if (pf.lkind == Kind::File) gitfile(r);
          continue;  // git internals are never walked
        }
      }
      if (type == DT_DIR && depth <= 3 && !is_noise_dir(name)) walk(r, depth + 1);
    }
  }
};

}  // namespace

PathFact probe_path(const std::string& path) {
  PathFact pf;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return pf;
  pf.lkind = pf.kind = kind_of(st.st_mode);
  if (pf.lkind == Kind::Symlink) {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n > 0) pf.link.assign(buf, size_t(n));
    pf.kind = ::stat(path.c_str(), &st) == 0 ? kind_of(st.st_mode) : Kind::Missing;
  }
  if (pf.kind != Kind::Missing) pf.real = real_of(path);
  return pf;
}

std::string parse_hooks_path(const std::string& text) {
  std::istringstream in(text);
  std::string line, section, value;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = lower(trim(line.substr(1, line.find(']') - 1)));
      continue;
    }
    auto eq = line.find('=');
    if (section != "core" || eq == std::string::npos) continue;
    if (lower(trim(line.substr(0, eq))) != "hookspath") continue;
    std::string v = trim(line.substr(eq + 1));
    if (!v.empty() && v[0] == '"') {
      auto end = v.find('"', 1);
      v = v.substr(1, end == std::string::npos ? std::string::npos : end - 1);
    } else {
      v = trim(v.substr(0, v.find_first_of("#;")));
    }
    value = v;  // the last one wins, as in git
  }
  return value;
}

WorkspaceScan scan_workspace(const std::string& root) {
  Walker w{root, {}, {}};
  w.walk("", 1);
  return std::move(w.out);
}

bool is_noise_dir(const std::string& name) {
  static const char* const noise[] = {"node_modules", "target", "dist", "build", ".venv", "vendor", "__pycache__"};
  return std::find(std::begin(noise), std::end(noise), name) != std::end(noise);
}

bool is_env_file_name(const std::string& name) {
  // .env, .env.local, .envrc (direnv runs it on the host): files only; a venv dir named .env is not.
  return name.rfind(".env", 0) == 0;
}

const std::vector<std::string>& protected_file_names() {
  static const std::vector<std::string> names = {
      ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
      ".zlogin", ".gitconfig", ".gitmodules", ".ripgreprc", ".mcp.json",
      // The project policy: the agent must not widen its own grants (the trust gate would ask
      // again, but a user in a hurry says yes).
      ".blaude", ".xclaude"};
  return names;
}

}  // namespace blaude::sandbox::bwrap
