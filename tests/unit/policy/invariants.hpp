// The property every accepted policy file must have, shared by the property test and the
// libFuzzer target: it yields only rules of the declared kinds on the declared paths, never a
// rule on /, $HOME or an ancestor of them, and its SBPL has exactly one rule per grant, before
// the protective denies. Returns "" or a description of the violation.
#pragma once
#include <string>
#include <string_view>

#include "net/pattern.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/seatbelt/profile.hpp"
#include "sandbox/policy/toolchains.hpp"
#include "seatbelt/sbpl_reader.hpp"

namespace blaude::sandbox::testing {
using namespace blaude::sandbox::policy;
using namespace blaude::sandbox::seatbelt;

inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Checks `r`, the parser's result for `text` (split out so tests can hand it a tampered result).
inline std::string check_parsed(std::string_view text, const PolicyContext& ctx,
                                const PolicyResult& r) {
  const std::string file = "/f/.blaude";
  if (!r.ok()) {
    if (!r.policy.grants.empty() || !r.policy.tools.empty()) return "rejected file grants something";
    for (const auto& e : r.errors)
      if (e.line <= 0 || e.why.empty() || e.file != file) return "error without file:line: why";
    return "";
  }
  // Independent reading of the declared lines.
  Grants declared;
  int lineno = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    auto line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    line = trim_blanks(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    auto sp = line.find_first_of(" \t");
    auto verb = line.substr(0, sp);
    auto arg = std::string(trim_blanks(line.substr(sp + 1)));
    const std::string origin = file + ":" + std::to_string(lineno);
    if (verb == "tool") {
      const Toolchain* t = find_toolchain(arg);
      if (!t) return "accepted an unknown tool";
      auto ex = [&](std::string_view p) {
        return p.starts_with("~/") ? ctx.home + std::string(p.substr(1)) : std::string(p);
      };
      const std::string o = "tool " + arg + " (" + origin + ")";
      for (auto p : t->read) declared.push_back({Access::Read, ex(p), o});
      for (auto p : t->write) declared.push_back({Access::Write, ex(p), o});
      for (auto p : t->exec) declared.push_back({Access::Exec, ex(p), o});
      for (auto p : t->run) declared.push_back({Access::Exec, ex(p), o});
      continue;
    }
    if (verb == "no-default-domains") continue;  // no grant: it takes default hosts away
    if (verb == "ssh-agent" || verb == "ssh-key") continue;  // no grant: the signing-only agent's
    if (verb == "clipboard-paste") continue;  // no grant: the clipboard stand-ins' reads
    // No grant either: a filter lifted for the session, and where the project is mounted.
    if (verb == "nested-sandbox" || verb == "workspace-path") continue;
    if (verb == "memory-max" || verb == "pids-max" || verb == "no-limits") continue;  // limits, no grant
    if (verb == "allow-domain") {  // a destination, in its canonical spelling
      auto p = net::parse_pattern(arg);
      if (!std::holds_alternative<net::Pattern>(p)) return "accepted a bad allow-domain pattern";
      declared.push_back({Access::Net, std::get<net::Pattern>(p).text(), origin});
      continue;
    }
    Access a;
    if (verb == "allow-read") a = Access::Read;
    else if (verb == "allow-write") a = Access::Write;
    else if (verb == "allow-exec") a = Access::Exec;
    else return "accepted an unknown directive";
    if (arg.size() > 1 && arg.back() == '/') arg.pop_back();
    std::string path;
    if (arg.starts_with("~/")) path = ctx.home + arg.substr(1);
    else if (arg.starts_with("./")) path = ctx.project_root + arg.substr(1);
    else if (arg.starts_with("/")) path = arg;
    else return "accepted a path without ~/, ./ or /";
    if (path_within(path, ctx.project_root)) continue;  // inside the project: ignored
    declared.push_back({a, path, origin});
  }
  if (declared.size() != r.policy.grants.size()) return "grant count differs from the lines";
  for (size_t i = 0; i < declared.size(); ++i) {
    const auto& d = declared[i];
    const auto& g = r.policy.grants[i];
    if (d.access != g.access || d.path != g.path || d.origin != g.origin)
      return "grant differs from its line: " + g.path;
    if (g.access == Access::Net) {
      auto p = net::parse_pattern(g.path);
      if (!std::holds_alternative<net::Pattern>(p) || std::get<net::Pattern>(p).text() != g.path)
        return "destination not in canonical form: " + g.path;
      continue;  // not a path: the path checks below do not apply
    }
    if (g.path == "/" || path_within(ctx.home, g.path)) return "grant of / or $HOME: " + g.path;
    if (path_within(g.path, ctx.project_root)) return "grant inside the project: " + g.path;
    if (g.path.find("//") != std::string::npos || g.path.find("/./") != std::string::npos ||
        g.path.find("/../") != std::string::npos || g.path.ends_with("/..") ||
        g.path.ends_with("/.") || g.path.ends_with("/"))
      return "unnormalised path: " + g.path;
    for (unsigned char c : g.path)
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '(' || c == ')')
        return "forbidden character in an accepted path";
  }
  // The SBPL: exactly one rule per normalised grant, all before the protective denies.
  SeatbeltContext sc;
  sc.home = ctx.home;
  sc.project_dir = ctx.project_root;
  sc.claude_config_dir = ctx.home + "/.claude";
  sc.always_protect = {file};
  sc.protect = {{ctx.project_root + "/.git/hooks", true, "hooks"}, {ctx.project_root + "/.git/config", false, "config"}};
  auto grants = policy_grants(r.policy);
  std::erase_if(grants, [](const Grant& g) { return g.access == Access::Net; });  // no SBPL: proxy mode is Linux's
  auto base = sbpl::read_all(seatbelt_profile({}, sc));
  auto forms = sbpl::read_all(seatbelt_profile(grants, sc));
  if (forms.size() != base.size() + grants.size()) return "SBPL rule count is not base + grants";
  const size_t first = base.size() - 2;
  for (size_t i = 0; i < grants.size(); ++i) {
    const auto& f = forms[first + i];
    const char* ops = grants[i].access == Access::Read    ? "(allow file-read-data (subpath "
                      : grants[i].access == Access::Write ? "(allow file-read-data file-write* (subpath "
                                                          : "(allow file-read-data process-exec (subpath ";
    sbpl::Node s;
    s.is_string = true;
    s.atom = grants[i].path;
    if (f.str() != ops + s.str() + "))") return "SBPL rule differs from its grant: " + f.str();
  }
  if (forms[forms.size() - 2].str() != base[base.size() - 2].str() ||
      forms.back().str() != base.back().str())
    return "protective denies are not last";
  if (sbpl::decide(forms, "file-write*", ctx.project_root + "/.git/hooks/pre-commit"))
    return ".git/hooks writable";
  return "";
}

inline std::string check_policy_invariants(std::string_view text, const PolicyContext& ctx) {
  return check_parsed(text, ctx, parse_policy(text, "/f/.blaude", ctx));
}

}  // namespace blaude::sandbox::testing
