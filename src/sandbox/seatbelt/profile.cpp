#include "sandbox/seatbelt/profile.hpp"

#include <utf8proc.h>

namespace blaude::sandbox::seatbelt {

using namespace blaude::sandbox::policy;

namespace {

std::string subpath(std::string_view p) { return "(subpath " + sbpl_string(p) + ")"; }
std::string literal(std::string_view p) { return "(literal " + sbpl_string(p) + ")"; }

// "(allow OPS\n  FILTER\n  FILTER)\n"
std::string rule(std::string_view verb, std::string_view ops, const std::vector<std::string>& fs) {
  std::string out = "(" + std::string(verb) + " " + std::string(ops);
  for (const auto& f : fs) out += "\n  " + f;
  return out + ")\n";
}

std::string base_nonfs() {
  // Filesystem isolation is the goal (as in xclaude); these stay open so runtimes start.
  // Signals are limited to the sandbox itself so the supervisor outside cannot be signalled.
  return ";; non-filesystem operations\n"
         "(allow network*)\n"
         "(allow mach*)\n"
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
}

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

std::string seatbelt_profile(const Policy& policy, const SeatbeltContext& ctx) {
  if (ctx.home.empty() || ctx.project_dir.empty())
    throw SeatbeltError("home and project directory must be known");
  const std::string& H = ctx.home;
  const std::string& P = ctx.project_dir;
  std::string out = "(version 1)\n(deny default)\n\n" + base_nonfs();

  out += "\n;; reads: metadata everywhere (stat works), contents only from the allowlist\n";
  out += rule("allow", "file-read-metadata file-read-xattr file-map-executable", {subpath("/")});
  std::vector<std::string> reads = {literal("/")};
  for (const char* d : {"/bin", "/sbin", "/usr", "/System", "/Library", "/private/etc",
                        "/private/var/db", "/dev", "/opt/homebrew", "/private/tmp"})
    reads.push_back(subpath(d));
  if (!ctx.tmp_dir.empty()) reads.push_back(subpath(ctx.tmp_dir));
  for (const char* f : {".gitconfig", ".zshrc", ".bashrc", ".profile", ".zprofile",
                        ".bash_profile", ".zshenv", ".claude.json"})
    reads.push_back(literal(H + "/" + f));
  for (const char* d : {".local/bin", ".local/share/claude", ".claude", ".local/state/claude",
                        "Library/Keychains"})
    reads.push_back(subpath(H + "/" + d));
  reads.push_back(subpath(P));
  out += rule("allow", "file-read-data", reads);

  out += "\n;; writes: the project, temporary dirs, Claude's own state\n";
  std::vector<std::string> writes = {subpath(P), subpath("/private/tmp")};
  if (!ctx.tmp_dir.empty()) writes.push_back(subpath(ctx.tmp_dir));
  writes.push_back(subpath(H + "/.claude"));
  writes.push_back(literal(H + "/.claude.json"));
  writes.push_back(literal(H + "/.claude.json.lock"));
  writes.push_back(subpath(H + "/.local/state/claude"));
  out += rule("allow", "file-write*", writes);

  out += "\n;; exec: system binaries, Homebrew, the project, Claude itself\n";
  out += rule("allow", "process-exec",
              {subpath("/bin"), subpath("/usr/bin"), subpath("/opt/homebrew"), subpath(P),
               subpath(H + "/.local/bin"), subpath(H + "/.local/share/claude")});

  out += "\n;; devices: no regex over /dev/ttys*: only the session's own terminal\n";
  std::vector<std::string> devs;
  for (const char* d : {"/dev/null", "/dev/zero", "/dev/tty", "/dev/random", "/dev/urandom",
                        "/dev/dtracehelper"})
    devs.push_back(literal(d));
  if (!ctx.tty_device.empty()) devs.push_back(literal(ctx.tty_device));
  out += rule("allow", "file-read* file-write* file-ioctl", devs);

  if (!ctx.git_common_dir.empty()) {
    out += "\n;; linked worktree: the shared git dir lives outside the project\n";
    out += rule("allow", "file-read-data file-write*", {subpath(ctx.git_common_dir)});
  }

  const Grants grants = policy_grants(policy);
  if (!grants.empty()) out += "\n;; policy grants\n";
  for (const auto& g : grants) {
    out += ";; " + std::string(access_name(g.access)) + " from " + sbpl_string(g.origin) + "\n";
    switch (g.access) {
      case Access::Read: out += rule("allow", "file-read-data", {subpath(g.path)}); break;
      case Access::Write: out += rule("allow", "file-read-data file-write*", {subpath(g.path)}); break;
      case Access::Exec: out += rule("allow", "file-read-data process-exec", {subpath(g.path)}); break;
      case Access::Net: break;  // proxy mode is Linux-only: the app refuses it before a profile
    }
  }

  out += "\n;; protective denies, LAST so that no allow above can re-open them\n";
  std::vector<std::string> denies = {
      R"sb((regex #"/\.env[^/]*$"))sb",
      R"sb((regex #"/\.git/hooks(/|$)"))sb",
      R"sb((regex #"/\.git/(worktrees/[^/]+/)?config(\.worktree)?$"))sb",
      R"sb((regex #"/\.git/(worktrees/[^/]+/)?commondir$"))sb",
      R"sb((regex #"/\.blaude$"))sb",
      R"sb((regex #"/\.xclaude$"))sb",
  };
  if (!ctx.policy_file.empty()) denies.push_back(literal(ctx.policy_file));
  if (!ctx.git_common_dir.empty()) {
    denies.push_back(subpath(ctx.git_common_dir + "/hooks"));
    denies.push_back(literal(ctx.git_common_dir + "/config"));
  }
  out += rule("deny", "file-write*", denies);
  // Renaming .git (or the project) would carry the protected files out from under the rules.
  std::vector<std::string> unlinks = {R"sb((regex #"/\.git$"))sb", literal(P)};
  out += rule("deny", "file-write-unlink", unlinks);
  return out;
}

}  // namespace blaude::sandbox::seatbelt
