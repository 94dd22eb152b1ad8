#include "sandbox/seatbelt/host.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "common/claude_keys.hpp"
#include "common/file_io.hpp"
#include "common/path_search.hpp"
#include "common/paths.hpp"
#include "sandbox/seatbelt/workspace.hpp"

namespace blaude::sandbox::seatbelt {

namespace {

Probed probe_path(const std::string& path) {
  Probed p;
  p.path = path;
  struct stat st;
  if (path.empty() || ::lstat(path.c_str(), &st) != 0) return p;
  p.link = S_ISLNK(st.st_mode);
  p.real = canonical_path(path);
  struct stat t;
  p.socket = !p.real.empty() && ::stat(p.real.c_str(), &t) == 0 && S_ISSOCK(t.st_mode);
  return p;
}

#ifdef __APPLE__
// confstr(_CS_DARWIN_USER_*_DIR): the per-user dirs as macOS itself names them (they exist even
// when $TMPDIR is unset, in ssh or launchd contexts). Apple-only, and never compiled here.
std::string darwin_confstr(int which) {
  char buf[1024];
  size_t n = ::confstr(which, buf, sizeof buf);
  if (n == 0 || n > sizeof buf) return "";
  return canonical_path(buf);
}
#endif

void find_darwin_dirs(SeatbeltHost& h) {
#ifdef __APPLE__
  h.darwin_temp = darwin_confstr(_CS_DARWIN_USER_TEMP_DIR);
  h.darwin_cache = darwin_confstr(_CS_DARWIN_USER_CACHE_DIR);
#endif
  if (h.darwin_temp.empty() && h.tmpdir_env.starts_with("/")) h.darwin_temp = canonical_path(h.tmpdir_env);
}

// xcode-select's choice (a root-owned link), then the Command Line Tools: the real binaries
// behind /usr/bin's git, make, clang, python3 shims live there.
void find_developer_dirs(SeatbeltHost& h) {
  for (const char* link : {"/private/var/db/xcode_select_link", "/private/var/select/developer_dir"}) {
    std::string d = canonical_path(link);
    if (!d.empty() && is_dir(d)) {
      h.developer_dirs.push_back(d);
      break;
    }
  }
  std::string clt = canonical_path("/Library/Developer/CommandLineTools");
  if (!clt.empty() && (h.developer_dirs.empty() || h.developer_dirs[0] != clt)) h.developer_dirs.push_back(clt);
}

void find_program(SeatbeltHost& h, const std::string& name, const std::string& path_env) {
  h.program = name;
  if (name.empty()) return;
  h.program_found = find_executable(name, path_env).value_or("");
  if (h.program_found.empty()) return;
  h.program_real = canonical_path(h.program_found);
  auto head = read_small_file(h.program_real, 256);
  if (!head) return;
  auto sb = parse_shebang(*head);
  if (!sb) return;
  std::string interp = sb->via_env ? find_executable(sb->program, path_env).value_or("") : sb->program;
  if (!interp.empty()) h.interpreter_real = canonical_path(interp);
}

}  // namespace

std::string SeatbeltHost::env_or(const std::string& key, const std::string& fallback) const {
  for (const auto& [k, v] : env)
    if (k == key) return v.empty() ? fallback : v;
  return fallback;
}

std::optional<DarwinDirs> darwin_dirs_from_temp(const std::string& t) {
  // /private/var/folders/<2 chars>/<id>/T
  const std::string root = "/private/var/folders/";
  if (!t.starts_with(root)) return std::nullopt;
  std::string rest = t.substr(root.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  auto a = rest.find('/');
  if (a == std::string::npos || a == 0) return std::nullopt;
  auto b = rest.find('/', a + 1);
  if (b == std::string::npos || b == a + 1 || rest.substr(b) != "/T") return std::nullopt;
  std::string base = root + rest.substr(0, b);
  return DarwinDirs{base + "/T", base + "/C", base + "/X"};
}

std::optional<Shebang> parse_shebang(std::string_view s) {
  if (!s.starts_with("#!")) return std::nullopt;
  s.remove_prefix(2);
  s = s.substr(0, s.find('\n'));
  auto words = [](std::string_view t) {
    std::vector<std::string> w;
    size_t i = 0;
    while (i < t.size()) {
      while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r')) ++i;
      size_t j = i;
      while (j < t.size() && t[j] != ' ' && t[j] != '\t' && t[j] != '\r') ++j;
      if (j > i) w.emplace_back(t.substr(i, j - i));
      i = j;
    }
    return w;
  }(s);
  if (words.empty() || !words[0].starts_with("/")) return std::nullopt;
  if (basename_of(words[0]) != "env") return Shebang{words[0], false};
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "-S" || words[i].starts_with("-")) continue;  // env -S node --flag
    if (words[i].find('=') != std::string::npos) continue;      // env VAR=1 node
    return Shebang{words[i], true};
  }
  return std::nullopt;
}

SeatbeltHost SeatbeltHost::probe(const HostEnv& host, const SandboxRequest& req) {
  SeatbeltHost h;
  for (const auto& [k, v] : host.env) h.env.emplace_back(k, v);
  h.sandbox_exec = ::access(kSandboxExec, X_OK) == 0 ? kSandboxExec : "";
  h.home = host.home;
  h.home_real = host.home_real.empty() ? host.home : host.home_real;
  h.project = host.cwd;
  h.user = host.user;
  h.tmpdir_env = host.get("TMPDIR");
  find_darwin_dirs(h);
  find_developer_dirs(h);
  const std::string path_env = host.get("PATH");
  find_program(h, req.program(), path_env);

  const std::string& H = h.home_real;
  std::string ccd = host.get("CLAUDE_CONFIG_DIR");
  if (!ccd.empty() && ccd[0] == '/') {
    std::string r = canonical_path(ccd);
    h.claude_config_dir = r.empty() ? normalize(ccd) : r;
  } else {
    std::string r = canonical_path(H + "/.claude");
    h.claude_config_dir = r.empty() ? H + "/.claude" : r;
  }
  for (const auto& rel : base_home_entries()) h.home_entries.push_back(probe_path(H + "/" + rel));
  for (const auto& m : req.mounts) h.mounts.push_back(probe_path(join(host.cwd, m.path)));
  h.ssh_dir = probe_path(H + "/.ssh");
  h.ssh_sock = probe_path(host.get("SSH_AUTH_SOCK"));
  h.aws_dir = probe_path(H + "/.aws");
  h.git_credentials = probe_path(H + "/.git-credentials");
  std::string gnupg = host.get("GNUPGHOME");
  h.gnupg_dir = probe_path(gnupg.empty() || gnupg[0] != '/' ? H + "/.gnupg" : gnupg);
  if (h.gnupg_dir.exists()) {
    // The public parts only: never private-keys-v1.d or secring.
    for (const char* f : {"pubring.kbx", "pubring.gpg", "trustdb.gpg", "gpg.conf", "common.conf"}) {
      Probed p = probe_path(h.gnupg_dir.real + "/" + f);
      if (p.exists()) h.gnupg_public.push_back(p.real);
    }
    h.gpg_sock = probe_path(h.gnupg_dir.real + "/S.gpg-agent");
  }
  if (!req.tmp && !h.project.empty()) {
    WorkspaceProtections w = scan_workspace(h.project, H, host.get("XDG_CONFIG_HOME"));
    h.protect = std::move(w.protect);
    h.git_dirs = std::move(w.git_dirs);
    h.warnings.insert(h.warnings.end(), w.warnings.begin(), w.warnings.end());
  }
  // The same files and the same reading as the bwrap probe (host_facts_claude.cpp); under --tmp
  // the project's settings are not the session's, the user's still are.
  const std::string ws = req.tmp ? std::string() : h.project;
  h.claude_scripts = claude_settings_programs(h.claude_config_dir, ws, H);
  return h;
}

}  // namespace blaude::sandbox::seatbelt
