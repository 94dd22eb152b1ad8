#include "sandbox/trust/ledger.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "sandbox/policy/print.hpp"

namespace blaude::sandbox::trust {

using namespace blaude::sandbox::policy;

namespace {

using nlohmann::json;

std::optional<Access> access_from(const std::string& s) {
  if (s == "read") return Access::Read;
  if (s == "write") return Access::Write;
  if (s == "exec") return Access::Exec;
  if (s == "net") return Access::Net;
  return std::nullopt;
}

}  // namespace

std::optional<Ledger> parse_ledger(std::string_view text, std::string& error) {
  Ledger l;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return l;
  try {
    json j = json::parse(text);
    if (j.at("version").get<int>() != 1) {
      error = "unknown ledger version";
      return std::nullopt;
    }
    for (const auto& e : j.at("entries")) {
      TrustEntry t;
      t.scope = e.at("scope").get<std::string>();
      t.sha256 = e.at("sha256").get<std::string>();
      t.base = e.at("base").get<std::string>();
      t.file = e.value("file", "");
      for (const auto& g : e.value("grants", json::array())) {
        auto a = access_from(g.at("access").get<std::string>());
        if (!a) {
          error = "unknown access in ledger";
          return std::nullopt;
        }
        t.grants.push_back({*a, g.at("path").get<std::string>(), g.value("origin", "")});
      }
      l.entries.push_back(std::move(t));
    }
  } catch (const json::exception& e) {
    error = e.what();
    return std::nullopt;
  }
  return l;
}

std::string format_ledger(const Ledger& ledger) {
  json entries = json::array();
  for (const auto& t : ledger.entries) {
    json grants = json::array();
    for (const auto& g : t.grants)
      grants.push_back({{"access", std::string(access_name(g.access))},
                        {"path", g.path},
                        {"origin", g.origin}});
    entries.push_back({{"scope", t.scope},
                       {"sha256", t.sha256},
                       {"base", t.base},
                       {"file", t.file},
                       {"grants", grants}});
  }
  json j = {{"version", 1}, {"entries", entries}};
  return j.dump(2) + "\n";
}

TrustCheck check_trust(const Ledger& ledger, std::string_view scope, std::string_view sha256,
                       std::string_view base) {
  TrustCheck c;
  for (const auto& e : ledger.entries) {
    if (e.scope != scope) continue;
    c.previous = e;
    if (e.sha256 != sha256) c.state = TrustState::Changed;
    else if (e.base != base) c.state = TrustState::BaseChanged;
    else c.state = TrustState::Trusted;
    return c;
  }
  return c;
}

void record_trust(Ledger& ledger, TrustEntry entry) {
  for (auto& e : ledger.entries)
    if (e.scope == entry.scope) {
      e = std::move(entry);
      return;
    }
  ledger.entries.push_back(std::move(entry));
}

std::string quote_policy_text(std::string_view text, size_t max_lines) {
  std::string out;
  size_t lines = 0, total = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++total;
    if (lines >= max_lines) continue;
    ++lines;
    out += "  | ";
    const auto* b = reinterpret_cast<const utf8proc_uint8_t*>(line.data());
    utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(line.size());
    while (left > 0) {
      utf8proc_int32_t cp = 0;
      utf8proc_ssize_t n = utf8proc_iterate(b, left, &cp);
      bool shown = n > 0 && !(cp < 0x20 && cp != '\t') && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0);
      if (n <= 0) n = 1;
      if (shown) {
        out.append(reinterpret_cast<const char*>(b), size_t(n));
      } else {
        for (utf8proc_ssize_t i = 0; i < n; ++i) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(b[i]));
          out += hex;
        }
      }
      b += n;
      left -= n;
    }
    out += "\n";
  }
  if (total > lines)
    out += "  | ... (" + std::to_string(total - lines) + " more lines; the grants below are all of them)\n";
  return out;
}

std::string trust_prompt(const std::string& file, const TrustCheck& check, const Grants& grants,
                         const std::vector<std::string>& notes, std::string_view text, const Grants& resolved,
                         bool seed_workspace) {
  std::string out;
  switch (check.state) {
    case TrustState::New: out += "blaude: new project policy: " + file + "\n"; break;
    case TrustState::Changed: out += "blaude: project policy changed: " + file + "\n"; break;
    case TrustState::BaseChanged:
      out += "blaude: blaude's base policy changed since you trusted " + file + "\n";
      break;
    case TrustState::Trusted: out += "blaude: trusted project policy: " + file + "\n"; break;
  }
  if (!text.empty()) out += "Its text:\n" + quote_policy_text(text);
  out += "It grants, highest risk first:\n" + format_grants(grants);
  Grants elsewhere;
  for (const auto& g : resolved)
    if (std::none_of(grants.begin(), grants.end(),
                     [&](const Grant& w) { return w.access == g.access && w.path == g.path; }))
      elsewhere.push_back(g);
  if (!elsewhere.empty())
    out += "On this host symlinks send some of them elsewhere; these paths apply too:\n" + format_grants(elsewhere);
  for (const auto& n : notes) out += "  note: " + n + "\n";
  if (check.previous) {
    out += "Compared with what you trusted before:\n";
    out += format_diff(diff_grants(check.previous->grants, grants));
  }
  out += seed_workspace ? "The project is at /workspaces/<dir> in the sandbox, its own path not shown (workspace-path seed).\n"
                        : "The project is at its own path in the sandbox, /workspaces/<dir> a link to it (workspace-path host).\n";
  out += "Whatever it says:\n" + protected_summary() + session_guards_summary();
  out += "blaude: apply this policy? [y/N] ";
  return out;
}

bool is_yes(std::string_view reply) {
  while (!reply.empty() && (reply.front() == ' ' || reply.front() == '\t')) reply.remove_prefix(1);
  while (!reply.empty() && (reply.back() == ' ' || reply.back() == '\t' || reply.back() == '\r' ||
                            reply.back() == '\n'))
    reply.remove_suffix(1);
  std::string r;
  for (char c : reply) r += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return r == "y" || r == "yes";
}

}  // namespace blaude::sandbox::trust
