#include "sandbox/bwrap/probe/host_tools.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "sandbox/bwrap/probe/scan.hpp"
#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

std::string tools_real_of(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> subdirs(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Symlinks directly in `dir`, and in its @scope subdirs when `scopes`.
void links_in(const std::string& dir, bool scopes, std::vector<std::string>& out) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name, p = dir + "/" + n;
    if (n == "." || n == "..") continue;
    unsigned char t = e->d_type;
    if (t == DT_UNKNOWN) {
      struct stat st;
      if (::lstat(p.c_str(), &st) != 0) continue;
      t = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    if (t == DT_LNK) {
      out.push_back(p);
    } else if (t == DT_DIR && scopes && n[0] == '@') {
      links_in(p, false, out);
    }
  }
  ::closedir(d);
}

std::string newest_dir(const std::vector<std::string>& candidates) {
  std::string best;
  timespec best_t{};
  for (const auto& c : candidates) {
    struct stat st;
    if (::stat(c.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (best.empty() || st.st_mtim.tv_sec > best_t.tv_sec)) {
      best = c;
      best_t = st.st_mtim;
    }
  }
  return best;
}

std::string xdg(const HostFacts& f, const char* var, const std::string& fallback_rel) {
  std::string v = f.env_or(var);
  return v.empty() || v.front() != '/' ? f.home + "/" + fallback_rel : normalize(v);
}

std::string abs_env_or(const HostFacts& f, const char* var, const std::string& fallback) {
  std::string v = f.env_or(var);
  return v.empty() || v.front() != '/' ? fallback : normalize(v);
}

// fnm's current node: the shell's multishell link, else the default alias, else the newest.
std::string find_fnm_node_bin(const HostFacts& f) {
  std::string bin;
  std::string ms = f.env_or("FNM_MULTISHELL_PATH");
  if (!ms.empty() && ms.front() == '/' && is_dir(ms + "/bin")) bin = tools_real_of(ms + "/bin");
  if (bin.empty() && is_dir(f.fnm_dir + "/aliases/default/bin")) bin = tools_real_of(f.fnm_dir + "/aliases/default/bin");
  if (bin.empty()) {
    std::vector<std::string> c;
    for (const auto& v : subdirs(f.fnm_dir + "/node-versions")) c.push_back(v + "/installation/bin");
    bin = newest_dir(c);
  }
  // Only a node the plan mounts (FNM_MULTISHELL_PATH may point anywhere).
  return !bin.empty() && is_under(bin, f.fnm_dir) && bin != f.fnm_dir ? bin : std::string();
}

void scan_linked(HostFacts& f, const std::string& label, const std::string& exclude,
                 const std::vector<std::string>& link_dirs) {
  std::vector<std::string> links;
  for (const auto& d : link_dirs) links_in(d, true, links);
  for (const auto& l : links) {
    std::string target = tools_real_of(l);
    if (target.empty() || is_under(target, exclude)) continue;
    std::string root = find_package_root(target, f.home_real);
    if (root.empty()) continue;
    if (std::any_of(f.linked_packages.begin(), f.linked_packages.end(),
                    [&](const LinkedPackage& p) { return p.root == root; }))
      continue;
    LinkedPackage p{label, root, linked_mount_for(root), {}, {}};
    p.token_cache = probe_path(root + "/.token-cache.json");
    p.selected_account = probe_path(root + "/.selected-account.json");
    f.linked_packages.push_back(std::move(p));
  }
}

}  // namespace

std::string find_package_root(const std::string& target, const std::string& home) {
  std::string d = is_dir(target) ? target : dirname_of(target);
  struct stat st;
  while (d != "/" && !is_under(home, d)) {
    if (::stat((d + "/package.json").c_str(), &st) == 0 && S_ISREG(st.st_mode)) return d;
    d = dirname_of(d);
  }
  return {};
}

std::string linked_mount_for(const std::string& root) {
  std::string parent = dirname_of(root);
  if (basename_of(parent) == "node_modules") return parent;
  std::string grand = dirname_of(parent);
  if (basename_of(parent).rfind('@', 0) == 0 && basename_of(grand) == "node_modules") return grand;
  return root;
}

void probe_node_tools(HostFacts& f) {
  f.fnm_dir = abs_env_or(f, "FNM_DIR", xdg(f, "XDG_DATA_HOME", ".local/share") + "/fnm");
  f.pnpm_home = abs_env_or(f, "PNPM_HOME", xdg(f, "XDG_DATA_HOME", ".local/share") + "/pnpm");
  f.corepack_home = abs_env_or(f, "COREPACK_HOME", xdg(f, "XDG_CACHE_HOME", ".cache") + "/node/corepack");
  for (const auto& p : {f.fnm_dir, f.fnm_dir + "/fnm", f.pnpm_home, f.pnpm_home + "/bin", f.pnpm_home + "/pnpm",
                        f.corepack_home})
    f.paths.emplace(p, probe_path(p));
  if (f.at(f.fnm_dir).kind == Kind::Dir) f.fnm_node_bin = find_fnm_node_bin(f);

  // Where `npm link` / `bun link` / `pnpm link -g` put their links (the package's own
  // node_modules are not descended: links there point at the tool's store).
  std::vector<std::string> dirs;
  for (const auto& v : subdirs(f.nvm_dir + "/versions/node")) dirs.push_back(v + "/lib/node_modules");
  scan_linked(f, "nvm", f.nvm_dir, dirs);
  dirs.clear();
  for (const auto& v : subdirs(f.fnm_dir + "/node-versions")) dirs.push_back(v + "/installation/lib/node_modules");
  scan_linked(f, "fnm", f.fnm_dir, dirs);
  dirs.clear();
  for (const auto& v : subdirs(f.pnpm_home + "/global")) dirs.push_back(v + "/node_modules");
  scan_linked(f, "pnpm", f.pnpm_home, dirs);
  scan_linked(f, "bun", f.home + "/.bun", {f.home + "/.bun/bin", f.home + "/.bun/install/global/node_modules"});
}

}  // namespace blaude::sandbox::bwrap
