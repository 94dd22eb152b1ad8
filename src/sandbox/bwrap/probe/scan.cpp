#include "sandbox/bwrap/probe/scan.hpp"

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
#include "sandbox/bwrap/probe/workspace.hpp"

namespace blaude::sandbox::bwrap {

namespace {

Kind kind_of(mode_t m) {
  if (S_ISREG(m)) return Kind::File;
  if (S_ISDIR(m)) return Kind::Dir;
  if (S_ISLNK(m)) return Kind::Symlink;
  if (S_ISSOCK(m)) return Kind::Socket;
  return Kind::Other;
}

std::string scan_real_of(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}


bool protected_name(const std::string& name, unsigned type) {
  const auto& names = protected_file_names();
  return is_protected_dir_name(name) || std::find(names.begin(), names.end(), name) != names.end() ||
         (type != S_IFDIR && is_env_file_name(name));
}

}  // namespace

void identify(std::map<std::string, Identity>& ids, std::string path) {
  for (;;) {
    if (ids.count(path)) return;
    struct stat st;
    Identity id;
    if (::lstat(path.c_str(), &st) == 0)
      id = {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, unsigned(st.st_mode & S_IFMT)};
    ids.emplace(path, id);
    if (path == "/") return;
    auto k = path.rfind('/');
    path = k == 0 ? "/" : path.substr(0, k);
  }
}

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
  if (pf.kind != Kind::Missing) pf.real = scan_real_of(path);
  return pf;
}

WorkspaceScan scan_workspace(const std::string& root, const std::string& home, const std::string& xdg_config_home,
                             int walk_threads) {
  WorkspaceScan out;
  WalkLimits lim;
  lim.threads = walk_threads;
  WorkspaceWalk w = walk_workspace(root, lim);
  out.entries = w.entries;
  out.dirs = w.dirs;
  out.root = root;
  out.walk_found = std::move(w.git_walk_order);
  out.truncated = w.truncated;
  out.truncated_at = w.truncated_at;
  out.unreadable = w.unreadable;
  for (const auto& e : w.dotnames) {
    std::string name = e.rel.substr(e.rel.rfind('/') + 1);
    if (!protected_name(name, e.type)) continue;
    std::string p = root + "/" + e.rel;
    PathFact pf;
    if (e.type == S_IFLNK) {
      pf = probe_path(p);
    } else {
      pf.lkind = pf.kind = kind_of(e.type);
      pf.real = p;  // the walk never goes through a link and root is canonical
    }
    out.hits.emplace_back(e.rel, pf);
  }
  for (const auto& l : w.links) {
    auto k = l.rel.rfind('/');
    std::string t = join(k == std::string::npos ? root : root + "/" + l.rel.substr(0, k), l.text);
    std::string real = scan_real_of(t);
    out.links.push_back({l.rel, real.empty() ? t : real});
  }
  GitFs& fs = host_git_fs();
  out.git = scan_repos(fs, w.git, read_global_git_config(fs, home, xdg_config_home), home);
  for (const auto& p : out.git.protect) identify(out.ids, p.path);
  for (const auto& [rel, pf] : out.hits) {
    identify(out.ids, root + "/" + rel);
    if (!pf.real.empty()) identify(out.ids, pf.real);
  }
  identify(out.ids, root);
  return out;
}

bool is_noise_dir(const std::string& name) {
  static const char* const noise[] = {"node_modules", "target", "dist", "build", ".venv", "vendor", "__pycache__"};
  return std::find(std::begin(noise), std::end(noise), name) != std::end(noise);
}

}  // namespace blaude::sandbox::bwrap
