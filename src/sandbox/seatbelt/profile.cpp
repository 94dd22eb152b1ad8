#include "sandbox/seatbelt/profile.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <set>

namespace blaude::sandbox::seatbelt {

namespace {

std::string subpath(std::string_view p) { return "(subpath " + sbpl_string(p) + ")"; }
std::string literal(std::string_view p) { return "(literal " + sbpl_string(p) + ")"; }

// "(allow OPS\n  FILTER\n  FILTER)\n"; nothing when there is no filter (a rule without one
// would apply to every path).
std::string rule(std::string_view verb, std::string_view ops, const std::vector<std::string>& fs) {
  if (fs.empty()) return "";
  std::string out = "(" + std::string(verb) + " " + std::string(ops);
  for (const auto& f : fs) out += "\n  " + f;
  return out + ")\n";
}

bool regex_safe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view(" /._,+@~-").find(c) != std::string_view::npos;
}

// The regex body for `path` (anchored), or "" when the path has a character outside the fixed
// alphabet. fold: letters match either case.
std::string path_regex(std::string_view path, bool fold) {
  std::string out = "^";
  for (char c : path) {
    if (!regex_safe(c)) return "";
    if (fold && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      char lo = char(c | 0x20), up = char(c & ~0x20);
      out += std::string("[") + up + lo + "]";
    } else if (c == '.' || c == '+') {
      out += std::string("\\") + c;
    } else {
      out += c;
    }
  }
  return out;
}

const char* const kHomeReadFiles[] = {".gitconfig",  ".zshrc",        ".bashrc",    ".profile",
                                      ".zprofile",   ".bash_profile", ".zshenv",    ".claude.json",
                                      ".config/git/config", ".config/git/ignore"};
const char* const kHomeReadDirs[] = {".local/state/claude", "Library/Keychains"};
// Where claude and the tools it runs are installed per user: readable and executable, never
// writable (so nothing planted here runs on the host later). npm/nvm/volta/bun globals, fnm,
// asdf, mise, pnpm, uv tools, pipx, the native installer's ~/.local.
const char* const kHomeToolDirs[] = {
    ".local/bin",          ".local/share/claude", ".nvm",          ".volta",
    ".bun/bin",            ".bun/install/global", ".npm-global",   ".local/share/fnm",
    "Library/Application Support/fnm", ".asdf", ".local/share/mise", ".local/share/pnpm",
    "Library/pnpm",        ".local/share/uv/tools", ".local/share/uv/python", ".local/share/pipx",
    ".cargo/bin",          "go/bin"};
// System places: readable; the *_exec ones also executable. /usr/local holds Intel Homebrew and
// the official Node installer; /opt/homebrew Apple-silicon Homebrew; /opt/local MacPorts.
const char* const kSystemRead[] = {"/bin", "/sbin", "/usr", "/System", "/Library", "/private/etc",
                                   "/private/var/db", "/dev", "/opt/homebrew", "/opt/local"};
const char* const kSystemExec[] = {"/bin",       "/sbin",         "/usr/bin", "/usr/sbin",
                                   "/usr/libexec", "/usr/local", "/opt/homebrew", "/opt/local"};

struct Builder {
  const SeatbeltContext& c;
  std::string out;

  std::string H(std::string_view rel) const { return c.home + "/" + std::string(rel); }
  // A home path and, when it is a symlink, its target: both spellings get the rule.
  void home(std::vector<std::string>& fs, std::string_view rel, bool tree) const {
    const std::string p = H(rel);
    fs.push_back(tree ? subpath(p) : literal(p));
    for (const auto& [link, target] : c.home_links)
      if (link == p) fs.push_back(tree ? subpath(target) : literal(target));
  }

  void nonfs() {
    // Filesystem isolation is the goal (as in xclaude); these stay open so runtimes start.
    // Signals are limited to the sandbox itself so the supervisor outside cannot be signalled.
    out += ";; non-filesystem operations\n";
    if (c.no_network) {
      // --no-network: loopback only (binding any local address covers IPv4-mapped loopback).
      out += "(allow network-bind (local ip \"*:*\"))\n"
             "(allow network-inbound (local ip \"*:*\"))\n"
             "(allow network-outbound (remote ip \"localhost:*\"))\n";
    } else {
      out += "(allow network*)\n";
    }
    out += "(allow mach*)\n"
           "(allow ipc-posix*)\n"
           "(allow sysctl*)\n"
           "(allow iokit*)\n"
           "(allow system*)\n"
           "(allow process-info*)\n"
           "(allow process-codesigning-status*)\n"
           "(allow user-preference-read)\n"
           "(allow dynamic-code-generation)\n"
           "(allow process-fork)\n"
           "(allow signal (target same-sandbox))\n";
    // connect() to a unix socket is network-outbound, not a file operation: Docker's socket is
    // a full escape, the ssh and gpg agents sign as the user. Only the DNS resolver, and the
    // agents the options name, each by its exact path (the filter form Apple's own profiles use).
    out += "\n;; unix sockets: none but the DNS resolver and the agents --ssh/--git name\n"
           "(deny network-outbound (remote unix-socket))\n";
    auto sock = [](const std::string& p) { return "(remote unix-socket (path-literal " + sbpl_string(p) + "))"; };
    std::vector<std::string> socks = {sock("/private/var/run/mDNSResponder")};
    for (const auto& s : c.sockets) socks.push_back(sock(s));
    out += rule("allow", "network-outbound", socks);
  }

  void reads() {
    out += "\n;; reads: metadata everywhere (stat works), contents only from the allowlist\n";
    out += rule("allow", "file-read-metadata file-read-xattr file-map-executable", {subpath("/")});
    std::vector<std::string> fs = {literal("/")};
    for (const char* d : kSystemRead) fs.push_back(subpath(d));
    if (!c.private_tmp) fs.push_back(subpath("/private/tmp"));
    for (const std::string* d : {&c.tmp_dir, &c.cache_dir, &c.volatile_dir})
      if (!d->empty()) fs.push_back(subpath(*d));
    for (const char* f : kHomeReadFiles) home(fs, f, false);
    for (const char* d : kHomeReadDirs) home(fs, d, true);
    if (!c.project_dir.empty()) fs.push_back(subpath(c.project_dir));
    out += rule("allow", "file-read-data", fs);
  }

  void writes() {
    out += "\n;; writes: the project, temporary dirs, Claude's own state\n";
    std::vector<std::string> fs;
    if (!c.project_dir.empty()) fs.push_back(subpath(c.project_dir));
    if (!c.private_tmp) fs.push_back(subpath("/private/tmp"));
    for (const std::string* d : {&c.tmp_dir, &c.cache_dir, &c.volatile_dir})
      if (!d->empty()) fs.push_back(subpath(*d));
    out += rule("allow", "file-write*", fs);

    out += "\n;; Claude's own state: its config dir, ~/.claude.json with its lock, temp and backup files\n";
    std::vector<std::string> cl = {subpath(c.claude_config_dir)};
    home(cl, ".claude.json", false);
    home(cl, ".claude.json.lock", false);
    if (auto re = path_regex(H(".claude.json"), false); !re.empty())
      cl.push_back("(regex #\"" + re + "[^/]*$\")");
    home(cl, ".local/state/claude", true);
    home(cl, "Library/Caches/claude-cli-nodejs", true);
    out += rule("allow", "file-read-data file-write*", cl);
  }

  void exec() {
    out += "\n;; exec: system binaries, Homebrew, /usr/local, the per-user tool homes, the project\n";
    std::vector<std::string> fs;
    for (const char* d : kSystemExec) fs.push_back(subpath(d));
    for (const char* d : kHomeToolDirs) home(fs, d, true);
    if (!c.project_dir.empty()) fs.push_back(subpath(c.project_dir));
    out += rule("allow", "file-read-data process-exec", fs);
    std::vector<std::string> extra;
    for (const auto& d : c.exec_dirs) extra.push_back(subpath(d));
    if (!extra.empty()) {
      out += ";; claude (or the --exec program) where it really is, its interpreter, the active developer dir\n";
      out += rule("allow", "file-read-data process-exec", extra);
    }
  }

  void devices() {
    out += "\n;; devices: no regex over /dev/ttys*: only the session's own terminal\n";
    std::vector<std::string> devs;
    for (const char* d : {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper"})
      devs.push_back(literal(d));
    if (c.dev_tty) devs.push_back(literal("/dev/tty"));
    if (!c.tty_device.empty()) devs.push_back(literal(c.tty_device));
    out += rule("allow", "file-read* file-write* file-ioctl", devs);
    // `> /dev/stderr`, `tee /dev/stdout`, bash's >(...): the descriptors the process already has.
    out += rule("allow", "file-read* file-write*",
                {literal("/dev/stdin"), literal("/dev/stdout"), literal("/dev/stderr"),
                 "(regex #\"^/dev/fd/[0-9]+$\")"});
  }

  void extras() {
    auto section = [&](const char* title, const char* ops, const std::vector<std::string>& paths) {
      std::vector<std::string> fs;
      for (const auto& p : paths) fs.push_back(subpath(p));
      if (fs.empty()) return;
      out += std::string("\n;; ") + title + "\n" + rule("allow", ops, fs);
    };
    section("a linked worktree's git dirs outside the project", "file-read-data file-write*", c.git_dirs);
    section("read-only: -m mounts, --ssh/--aws/--git files", "file-read-data", c.read_dirs);
    section("writable: -m PATH:rw, --keyring", "file-read-data file-write*", c.write_dirs);
  }

  void grants(const Grants& gs) {
    if (gs.empty()) return;
    out += "\n;; policy grants\n";
    for (const auto& g : gs) {
      if (g.access == Access::Net) continue;
      const char* name = g.access == Access::Read ? "read" : g.access == Access::Write ? "write" : "exec";
      out += ";; " + std::string(name) + " from " + sbpl_string(g.origin) + "\n";
      switch (g.access) {
        case Access::Read: out += rule("allow", "file-read-data", {subpath(g.path)}); break;
        case Access::Write: out += rule("allow", "file-read-data file-write*", {subpath(g.path)}); break;
        case Access::Exec: out += rule("allow", "file-read-data process-exec", {subpath(g.path)}); break;
      case Access::Net: break;  // proxy mode is Linux-only: the app refuses it before a profile
      }
    }
  }

  // Last: SBPL's last matching rule wins, so nothing above can re-open these. The same op names
  // as the allows (a deny of file-write-data would not override an allow of file-write*).
  void denies() {
    out += "\n;; protective denies, LAST so that no allow above can re-open them\n";
    std::vector<std::string> fs;
    std::set<std::string> pins;
    auto add = [&](const std::string& path, bool tree) {
      fs.push_back(tree ? subpath(path) : literal(path));
      // APFS is case-insensitive: .GIT/HOOKS names the same file.
      if (auto re = ci_regex(path, tree); !re.empty()) fs.push_back("(regex #\"" + re + "\")");
      for (auto& a : ancestors(path)) pins.insert(a);
    };
    for (const auto& p : c.always_protect) add(p, false);
    for (const auto& p : c.protect) add(p.path, p.tree);
    out += rule("deny", "file-write*", fs);
    // Renaming a directory above a protected path (or the project) would carry it out from under
    // the rules above, which match paths: mv .git g; write g/hooks/x; mv g .git.
    if (!c.project_dir.empty()) {
      pins.insert(c.project_dir);
      for (auto& a : ancestors(c.project_dir)) pins.insert(a);
    }
    std::vector<std::string> un;
    for (const auto& p : pins) un.push_back(literal(p));
    out += rule("deny", "file-write-unlink", un);
  }
};

}  // namespace

std::string sbpl_string(std::string_view s) {
  std::string out = "\"";
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) throw SeatbeltError("path is not valid UTF-8");
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
      throw SeatbeltError("path contains a control character");
    if (cp == '"' || cp == '\\') out += '\\';
    out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    left -= n;
  }
  return out + "\"";
}

std::string ci_regex(std::string_view path, bool tree) {
  std::string re = path_regex(path, true);
  if (re.empty()) return "";
  return re + (tree ? "(/.*)?$" : "$");
}

std::vector<std::string> base_home_entries() {
  std::vector<std::string> out;
  for (const char* f : kHomeReadFiles) out.emplace_back(f);
  for (const char* d : kHomeReadDirs) out.emplace_back(d);
  for (const char* d : kHomeToolDirs) out.emplace_back(d);
  for (const char* d : {".claude.json.lock", "Library/Caches/claude-cli-nodejs"}) out.emplace_back(d);
  return out;
}

std::vector<std::string> ancestors(std::string_view path) {
  std::vector<std::string> out;
  std::string p(path);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  for (auto k = p.rfind('/'); k != std::string::npos && k > 0; k = p.rfind('/')) {
    p.resize(k);
    out.push_back(p);
  }
  return out;
}

std::string seatbelt_profile(const Grants& grants, const SeatbeltContext& ctx) {
  if (ctx.home.empty() || ctx.claude_config_dir.empty())
    throw SeatbeltError("the home directory must be known");
  Builder b{ctx, "(version 1)\n(deny default)\n\n"};
  b.nonfs();
  b.reads();
  b.writes();
  b.exec();
  b.devices();
  b.extras();
  b.grants(grants);
  b.denies();
  return b.out;
}

}  // namespace blaude::sandbox::seatbelt
