#include "sandbox/seatbelt/context.hpp"

#include <algorithm>

#include "common/claude_keys.hpp"
#include "common/paths.hpp"
#include "sandbox/policy/policy.hpp"

namespace blaude::sandbox::seatbelt {

using policy::path_within;

namespace {

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// Too wide to open whole: /, home or a parent of it, a top-level dir.
bool too_wide(const std::string& dir, const std::string& home) {
  if (dir == "/" || path_within(home, dir)) return true;
  return std::count(dir.begin(), dir.end(), '/') < 2;
}

// The dir a program lives in (a package dir holds the helpers it runs: claude's ripgrep), or
// the file alone when its dir is too wide to open.
std::string program_grant(const std::string& real, const std::string& home) {
  if (real.empty()) return "";
  std::string d = dirname_of(real);
  return too_wide(d, home) ? real : d;
}

// T from confstr or $TMPDIR, accepted only where macOS puts it: a $TMPDIR of ~/src (the
// project's parent) or ~/Documents would otherwise become writable.
bool darwin_shaped(const std::string& p) { return p.starts_with("/private/var/folders/") && darwin_dirs_from_temp(p); }

}  // namespace

std::variant<SeatbeltDecision, SeatbeltPlanError> make_context(const SeatbeltHost& h, const SandboxRequest& req,
                                                               bool own_pty, const std::string& tty_token,
                                                               const std::string& policy_file) {
  SeatbeltDecision d;
  SeatbeltContext& c = d.ctx;
  const std::string& H = h.home_real;
  c.home = H;
  c.project_dir = req.tmp ? "" : h.project;
  c.claude_config_dir = h.claude_config_dir.empty() ? H + "/.claude" : h.claude_config_dir;
  c.dev_tty = own_pty;
  c.tty_device = own_pty ? tty_token : "";
  c.no_network = req.no_network;
  c.private_tmp = req.clear_tmp;

  if (darwin_shaped(h.darwin_temp)) {
    auto dd = darwin_dirs_from_temp(h.darwin_temp);
    c.tmp_dir = dd->temp;
    c.cache_dir = h.darwin_cache.empty() ? dd->cache : h.darwin_cache;
    c.volatile_dir = dd->volatile_dir;
    d.tmpdir = c.tmp_dir + "/";
  } else {
    d.warnings.push_back("the per-user temporary dir is unknown (TMPDIR=" +
                         (h.tmpdir_env.empty() ? std::string("<unset>") : h.tmpdir_env) +
                         "); only /private/tmp is writable, and keychain access may fail");
  }
  if (req.clear_tmp && c.tmp_dir.empty())
    return SeatbeltPlanError{"--clear-tmp: the per-user temporary dir (under /private/var/folders) is unknown",
                             "Without it the sandbox would have no temporary dir at all; run without --clear-tmp."};
  d.cwd = !req.tmp ? h.project : req.clear_tmp ? c.tmp_dir : "/private/tmp";

  for (const auto& e : h.home_entries)
    if (e.link && e.exists() && e.real != e.path) c.home_links.emplace_back(e.path, e.real);

  // The program where it really is, and what runs it.
  add_unique(c.exec_dirs, program_grant(h.program_real, H));
  add_unique(c.exec_dirs, program_grant(h.interpreter_real, H));
  for (const auto& dev : h.developer_dirs) add_unique(c.exec_dirs, dev);

  for (size_t i = 0; i < req.mounts.size() && i < h.mounts.size(); ++i) {
    const auto& m = req.mounts[i];
    const Probed& p = h.mounts[i];
    if (!p.exists())
      return SeatbeltPlanError{"mount path does not exist (or is a broken symlink): " + m.path,
                               "Check the path given to -m/--mount."};
    if (!req.allow_protected_writes && path_within(H, p.real))
      return SeatbeltPlanError{"refusing to mount your home directory or a parent of it: " + m.path,
                               "Mount a subdirectory instead, or use --allow-protected-writes to override."};
    if (p.real != p.path) d.notes.push_back("mount " + m.path + " is a symlink to " + p.real + "; granting that");
    add_unique(m.rw ? c.write_dirs : c.read_dirs, p.real);
  }
  if (req.ssh) {
    if (h.ssh_dir.exists()) add_unique(c.read_dirs, h.ssh_dir.real);
    if (h.ssh_sock.socket) {
      c.sockets.push_back(h.ssh_sock.real);
    } else {
      d.warnings.push_back("--ssh: SSH_AUTH_SOCK is not a socket; no agent forwarding");
    }
  }
  if (req.aws && h.aws_dir.exists()) add_unique(c.read_dirs, h.aws_dir.real);
  if (req.git) {
    if (h.git_credentials.exists()) add_unique(c.read_dirs, h.git_credentials.real);
    for (const auto& f : h.gnupg_public) add_unique(c.read_dirs, f);
    if (h.gpg_sock.socket) c.sockets.push_back(h.gpg_sock.real);
  }
  if (req.keyring) add_unique(c.write_dirs, H + "/Library/Keychains");

  c.git_dirs = h.git_dirs;
  if (!req.allow_protected_writes) {
    c.protect = h.protect;
    // What in Claude Code's writable config dir makes the next claude run code or follow
    // instructions (bwrap: plan.cpp add_claude_code_guards; common/claude_keys.hpp
    // claude_code_entries): hooks, commands, skills, agents, plugins (no write-discarding overlay
    // exists here, so a plugin install or marketplace update inside fails), CLAUDE.md, ..., and
    // the scripts the settings name. Denied by path, so also where they do not exist yet: the
    // sandbox cannot create them either.
    if (!c.claude_config_dir.empty())
      for (const auto& e : claude_code_entries())
        c.protect.push_back({c.claude_config_dir + "/" + e.name, e.dir, "Claude Code's programs and instructions (they run on the host)"});
    for (const auto& s : h.claude_scripts) c.protect.push_back({s, false, "a program Claude Code's settings name"});
  }
  // The policy files: never writable, in every mode (the agent must not widen its own grants).
  if (!c.project_dir.empty())
    for (const char* n : {"/.blaude", "/.xclaude"}) add_unique(c.always_protect, c.project_dir + n);
  add_unique(c.always_protect, policy_file);
  d.warnings.insert(d.warnings.end(), h.warnings.begin(), h.warnings.end());
  return d;
}

std::vector<std::string> audit_dirs(const SeatbeltContext& c, const Grants& grants) {
  std::vector<std::string> out;
  if (!c.project_dir.empty()) add_unique(out, c.project_dir);
  const std::string keychains = c.home + "/Library/Keychains";
  for (const auto& d : c.write_dirs)
    if (d != keychains) add_unique(out, d);
  for (const auto& d : c.git_dirs) add_unique(out, d);
  if (!c.claude_config_dir.empty()) add_unique(out, c.claude_config_dir);
  for (const auto& g : grants)
    if (g.access == Access::Write) add_unique(out, g.path);
  return out;
}

}  // namespace blaude::sandbox::seatbelt
