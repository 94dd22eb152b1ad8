#include <utf8proc.h>

#include <algorithm>
#include <array>

#include "common/limits.hpp"
#include "net/pattern.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/policy/toolchains.hpp"

namespace blaude::sandbox::policy {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool valid_tool_name(std::string_view n) {
  if (n.empty() || n.front() == '-') return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

// Characters that have no business in a path we pass to SBPL or bwrap. The Seatbelt generator
// escapes everything anyway; refusing them here keeps the trust prompt honest (what you read is
// what is granted) and keeps a newline from faking a second directive in any display.
std::string bad_char(std::string_view p) {
  const auto* b = reinterpret_cast<const utf8proc_uint8_t*>(p.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(p.size());
  while (left > 0) {
    utf8proc_int32_t c = 0;
    utf8proc_ssize_t n = utf8proc_iterate(b, left, &c);
    if (n <= 0) return "is not valid UTF-8";
    b += n;
    left -= n;
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) return "contains a control character";
    if (c == '"' || c == '\'') return "contains a quote";
    if (c == '(' || c == ')') return "contains a parenthesis";
    if (c == '\\') return "contains a backslash";
  }
  return "";
}

// Expands and checks the syntax of a PATH argument; on success returns "" and sets `out`.
std::string expand(std::string_view arg, const PolicyContext& ctx, std::string& out) {
  if (auto why = bad_char(arg); !why.empty()) return "path " + why;
  std::string base;
  std::string_view rest;
  if (arg.starts_with("~/")) {
    if (ctx.home.empty()) return "~/ used but the home directory is unknown";
    base = ctx.home;
    rest = arg.substr(2);
  } else if (arg.starts_with("./")) {
    if (ctx.project_root.empty()) return "./ used outside a project";
    base = ctx.project_root;
    rest = arg.substr(2);
  } else if (arg.starts_with("/")) {
    rest = arg.substr(1);
  } else {
    return "path must start with ~/, ./ or /";
  }
  if (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.empty()) {
    if (arg.starts_with("~")) return "bare ~ would grant the whole home directory";
    if (arg.starts_with(".")) return "bare . would grant the whole project (it already is)";
    return "/ would grant the whole file system";
  }
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('/', start);
    if (end == std::string_view::npos) end = rest.size();
    auto seg = rest.substr(start, end - start);
    if (seg.empty()) return "empty path segment (//)";
    if (seg == "." || seg == "..") return "'" + std::string(seg) + "' segments are not allowed";
    start = end + 1;
  }
  out = base + "/" + std::string(rest);
  return "";
}

std::string strip_slash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

constexpr std::array kKernelDirs = {"/proc", "/sys", "/dev", "/run", "/boot"};
// Top-level directories: never granted whole (the base policy provides what is needed of them).
constexpr std::array kTopLevel = {"/home", "/Users", "/mnt", "/media", "/Volumes"};
// System trees: never granted whole, never writable anywhere inside.
constexpr std::array kSystemRoots = {"/bin",  "/sbin", "/usr",    "/lib",   "/lib32",
                                     "/lib64", "/libx32", "/etc", "/var",   "/private",
                                     "/opt",  "/System", "/Library", "/Applications",
                                     "/nix",  "/snap",  "/srv",    "/root"};
// Credentials: never opened by a policy file (blaude has --ssh / --aws for deliberate use).
constexpr std::array kSecretHomeDirs = {".ssh", ".gnupg", ".aws"};
// Places where something written now runs later, outside the sandbox.
constexpr std::array kPersistenceHome = {
    ".bashrc",          ".bash_profile",       ".bash_login",       ".bash_logout",
    ".profile",         ".zshrc",              ".zshenv",           ".zprofile",
    ".zlogin",          ".zlogout",            ".config/fish",      ".inputrc",
    ".xprofile",        ".xinitrc",            ".xsession",         ".pam_environment",
    ".config/autostart", ".config/systemd",    ".config/environment.d", "Library/LaunchAgents",
    ".gitconfig",       ".config/git",         ".local/bin",        "bin",
    ".cargo/bin",       "go/bin",              ".claude/settings.json", ".claude/hooks"};

}  // namespace

bool path_within(std::string_view path, std::string_view ancestor) {
  if (ancestor == "/") return path.starts_with('/');
  if (!path.starts_with(ancestor)) return false;
  return path.size() == ancestor.size() || path[ancestor.size()] == '/';
}

std::string_view access_name(Access a) {
  switch (a) {
    case Access::Read: return "read";
    case Access::Write: return "write";
    case Access::Exec: return "exec";
    case Access::Net: return "net";
  }
  return "?";
}

std::string check_grant_path(Access access, const std::string& path, const PolicyContext& ctx) {
  if (!path.starts_with('/')) return "path is not absolute";
  if (path == "/") return "/ would grant the whole file system";
  if (!ctx.home.empty() && path_within(ctx.home, path))
    return "would grant $HOME or one of its ancestors";
  for (const char* d : kKernelDirs)
    if (path_within(path, d)) return std::string(d) + " is a kernel/runtime directory";
  for (const char* r : kTopLevel)
    if (path == r) return std::string(r) + " would grant every user's files";
  for (const char* r : kSystemRoots) {
    // Not "the base covers it": /opt, /Applications or /nix are not in the macOS base; a grant
    // names the part it needs.
    if (path == r)
      return std::string(r) + " is a whole system tree; grant the subdirectory you need (e.g. " + r +
             "/<name>)";
    if (access == Access::Write && path_within(path, r))
      return "system directories (" + std::string(r) + ") cannot be made writable";
  }
  if (!ctx.config_dir.empty()) {
    auto cfg = strip_slash(ctx.config_dir);
    if (path_within(path, cfg)) return "is blaude's own configuration";
    if (access == Access::Write && path_within(cfg, path))
      return "would make blaude's own configuration writable";
  }
  auto rejects = [&](const std::string& place, bool any_access) -> bool {
    if (path_within(path, place)) return any_access || access == Access::Write;
    // A writable ancestor lets the sandbox rename the place away and put its own in.
    return access == Access::Write && path_within(place, path);
  };
  if (!ctx.home.empty()) {
    for (const char* s : kSecretHomeDirs)
      if (rejects(ctx.home + "/" + s, true))
        return "~/" + std::string(s) + " holds credentials (use blaude's --ssh/--aws instead)";
    for (const char* s : kPersistenceHome)
      if (rejects(ctx.home + "/" + s, false))
        return "~/" + std::string(s) + " is a place where code persists outside the sandbox";
  }
  for (const auto& raw : ctx.path_dirs) {
    auto d = strip_slash(raw);
    if (!d.starts_with('/') || d == "/") continue;
    if (rejects(d, false)) return d + " is on the host PATH and cannot be made writable";
  }
  if (access == Access::Write && !ctx.project_root.empty() && path != ctx.project_root &&
      path_within(ctx.project_root, path))
    return "contains the project (its protected files could be moved away)";
  return "";
}

PolicyResult parse_policy(std::string_view text, const std::string& origin_file,
                          const PolicyContext& ctx) {
  PolicyResult r;
  int lineno = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    if (line.ends_with('\r')) line.remove_suffix(1);  // CRLF files
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string origin = origin_file + ":" + std::to_string(lineno);
    auto err = [&](std::string why) { r.errors.push_back({origin_file, lineno, std::move(why)}); };

    size_t sp = line.find_first_of(" \t");
    std::string_view verb = line.substr(0, sp);
    std::string_view arg = sp == std::string_view::npos ? "" : trim(line.substr(sp));
    Access access;
    if (verb == "tool") {
      if (arg.empty()) { err("tool needs a name"); continue; }
      if (!valid_tool_name(arg)) { err("invalid tool name"); continue; }
      const Toolchain* tc = find_toolchain(arg);
      if (!tc) { err("unknown tool '" + std::string(arg) + "'"); continue; }
      r.policy.tools.push_back({std::string(arg), origin});
      const std::string tool_origin = "tool " + std::string(arg) + " (" + origin + ")";
      auto add = [&](Access a, const auto& paths) {
        for (std::string_view p : paths) {
          std::string abs = p.starts_with("~/") ? ctx.home + std::string(p.substr(1))
                                                : std::string(p);
          if (auto why = check_grant_path(a, abs, ctx); !why.empty()) {
            err("tool " + std::string(arg) + ": " + abs + ": " + why);
            continue;
          }
          r.policy.grants.push_back({a, abs, tool_origin});
        }
      };
      add(Access::Read, tc->read);
      add(Access::Write, tc->write);
      add(Access::Exec, tc->exec);
      add(Access::Exec, tc->run);
      continue;
    }
    if (verb == "allow-domain") {
      if (arg.empty()) { err("allow-domain needs a pattern"); continue; }
      auto p = net::parse_pattern(arg);
      if (auto* e = std::get_if<net::PatternError>(&p)) { err("allow-domain " + std::string(arg) + ": " + e->what + " (" + e->hint + ")"); continue; }
      r.policy.grants.push_back({Access::Net, std::get<net::Pattern>(p).text(), origin});
      continue;
    }
    if (verb == "no-default-domains") {
      if (!arg.empty()) { err("no-default-domains takes no argument"); continue; }
      r.policy.no_default_domains = origin;
      continue;
    }
    if (verb == "nested-sandbox") {
      if (!arg.empty()) { err("nested-sandbox takes no argument"); continue; }
      r.policy.nested_sandbox = origin;
      continue;
    }
    if (verb == "ssh-agent") {
      if (!arg.empty()) { err("ssh-agent takes no argument (name keys with ssh-key lines)"); continue; }
      r.policy.ssh_agent = origin;
      continue;
    }
    if (verb == "clipboard-paste") {
      if (arg != "off" && arg != "text") {
        err("clipboard-paste takes off (no read of your clipboard from inside) or text (text reads always; images still "
            "only right after your paste key)");
        continue;
      }
      if (!r.policy.clipboard_paste.empty()) { err("clipboard-paste is said twice (first at " + r.policy.clipboard_paste_origin + ")"); continue; }
      r.policy.clipboard_paste = std::string(arg);
      r.policy.clipboard_paste_origin = origin;
      continue;
    }
    if (verb == "ssh-key") {
      if (arg.empty()) { err("ssh-key needs a key: its fingerprint (SHA256:...) or its comment, as ssh-add -l shows them"); continue; }
      r.policy.ssh_keys.push_back({std::string(arg), origin});
      continue;
    }
    if (verb == "workspace-path") {
      if (arg != "host" && arg != "seed") {
        err("workspace-path takes host (the project at its own path) or seed (at /workspaces/<dir> only)");
        continue;
      }
      if (!r.policy.workspace_path.empty()) { err("workspace-path is said twice (first at " + r.policy.workspace_path_origin + ")"); continue; }
      r.policy.workspace_path = std::string(arg);
      r.policy.workspace_path_origin = origin;
      continue;
    }
    if (verb == "memory-max" || verb == "pids-max") {
      std::string why;
      auto n = verb == "memory-max" ? parse_memory_size(arg, &why) : parse_pids_count(arg, &why);
      if (arg.empty()) why = "needs a value (memory-max 16G, pids-max 8192)";
      if (!n) { err(std::string(verb) + " " + why); continue; }
      (verb == "memory-max" ? r.policy.memory_max : r.policy.pids_max) = n;
      if (r.policy.limits_origin.empty()) r.policy.limits_origin = origin;
      continue;
    }
    if (verb == "no-limits") {
      if (!arg.empty()) { err("no-limits takes no argument"); continue; }
      r.policy.no_limits = origin;
      if (r.policy.limits_origin.empty()) r.policy.limits_origin = origin;
      continue;
    }
    if (verb == "allow-read") access = Access::Read;
    else if (verb == "allow-write") access = Access::Write;
    else if (verb == "allow-exec") access = Access::Exec;
    else if (verb == "pack") { err("'pack' is not supported; list the directives here"); continue; }
    else if (verb == "deny" || verb.starts_with("(")) {
      err("only tool and allow-* directives exist (a policy can widen, never write raw rules)");
      continue;
    } else { err("unknown directive '" + std::string(verb) + "'"); continue; }

    if (arg.empty()) { err(std::string(verb) + " needs a path"); continue; }
    std::string abs;
    if (auto why = expand(arg, ctx, abs); !why.empty()) { err(why); continue; }
    auto base = abs.substr(abs.rfind('/') + 1);
    if (base == kPolicyFileName || base == kXclaudeFileName) {
      err("a policy file cannot grant access to a policy file");
      continue;
    }
    if (auto why = check_grant_path(access, abs, ctx); !why.empty()) { err(why); continue; }
    if (!ctx.project_root.empty() && path_within(abs, ctx.project_root)) {
      r.policy.notes.push_back(origin + ": " + std::string(arg) +
                               " is inside the project, which is already fully accessible; "
                               "ignored");
      continue;
    }
    r.policy.grants.push_back({access, abs, origin});
  }
  if (!r.errors.empty()) r.policy = {};
  return r;
}

Policy merge_policies(const Policy& user, const Policy& project) {
  Policy m = user;
  m.tools.insert(m.tools.end(), project.tools.begin(), project.tools.end());
  m.grants.insert(m.grants.end(), project.grants.begin(), project.grants.end());
  m.notes.insert(m.notes.end(), project.notes.begin(), project.notes.end());
  return m;
}

Grants policy_grants(const Policy& policy) {
  Grants out;
  for (const auto& g : policy.grants) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Grant& o) {
      return o.access == g.access && o.path == g.path;
    });
    if (same == out.end()) out.push_back(g);
    else if (same->origin.find(g.origin) == std::string::npos) same->origin += ", " + g.origin;
  }
  // Write and exec both imply read on both backends.
  std::vector<std::string> stronger;
  for (const auto& g : out)
    if (g.access == Access::Write || g.access == Access::Exec) stronger.push_back(g.path);
  std::erase_if(out, [&](const Grant& g) {
    return g.access == Access::Read &&
           std::find(stronger.begin(), stronger.end(), g.path) != stronger.end();
  });
  // A reachable destination is a way out for anything readable: above reads.
  auto risk = [](Access a) { return a == Access::Exec ? 0 : a == Access::Write ? 1 : a == Access::Net ? 2 : 3; };
  std::stable_sort(out.begin(), out.end(), [&](const Grant& a, const Grant& b) {
    if (risk(a.access) != risk(b.access)) return risk(a.access) < risk(b.access);
    return a.path < b.path;
  });
  return out;
}

}  // namespace blaude::sandbox::policy
