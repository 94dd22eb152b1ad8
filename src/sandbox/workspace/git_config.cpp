#include "sandbox/workspace/git_config.hpp"

namespace blaude::sandbox::workspace {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool alnum(char c) { return alpha(c) || (c >= '0' && c <= '9'); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

struct Parser {
  std::string_view s;
  size_t i = 0;
  std::string section, subsection;
  bool in_section = false;
  std::vector<GitConfigEntry> out;

  bool end() const { return i >= s.size(); }
  char peek() const { return end() ? '\n' : s[i]; }
  void skip_line() {
    while (!end() && s[i] != '\n') ++i;
    if (!end()) ++i;
  }
  void skip_space() {
    while (!end() && space(s[i])) ++i;
  }

  // [name] or [name "sub"] or the legacy [name.sub]; false = malformed.
  bool header() {
    ++i;  // '['
    std::string name;
    while (!end() && (alnum(s[i]) || s[i] == '-' || s[i] == '.')) name += lower(s[i++]);
    std::string sub;
    if (!end() && space(s[i])) {
      skip_space();
      if (peek() != '"') return false;
      ++i;
      for (;;) {
        if (end() || s[i] == '\n') return false;
        char c = s[i++];
        if (c == '"') break;
        if (c == '\\') {
          if (end() || s[i] == '\n') return false;
          c = s[i++];
        }
        sub += c;
      }
    } else if (auto dot = name.find('.'); dot != std::string::npos) {
      sub = name.substr(dot + 1);
      name.resize(dot);
    }
    if (peek() != ']' || name.empty()) return false;
    ++i;
    section = name;
    subsection = sub;
    in_section = true;
    return true;
  }

  // After '=': the value up to the end of the (continued) line, quotes and escapes resolved.
  std::string value() {
    std::string v;
    size_t keep = 0;  // length of v without trailing unquoted blanks
    bool quoted = false;
    skip_space();
    while (!end()) {
      char c = s[i++];
      if (c == '\n') break;
      if (!quoted && (c == '#' || c == ';')) {
        skip_line();
        break;
      }
      if (c == '"') {
        quoted = !quoted;
        keep = v.size();
        continue;
      }
      if (c == '\\') {
        if (end()) break;
        char e = s[i++];
        if (e == '\n') continue;  // continuation
        if (e == '\r' && peek() == '\n') {
          ++i;
          continue;
        }
        v += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e;
        keep = v.size();
        continue;
      }
      v += c;
      if (quoted || !space(c)) keep = v.size();
    }
    v.resize(keep);
    return v;
  }

  void entry() {
    std::string key;
    while (!end() && (alnum(s[i]) || s[i] == '-')) key += lower(s[i++]);
    skip_space();
    GitConfigEntry e{section, subsection, key, {}, false};
    if (peek() == '=') {
      ++i;
      e.value = value();
      e.has_value = true;
    } else if (peek() == '\n' || peek() == '#' || peek() == ';') {
      skip_line();
    } else {
      skip_line();  // junk after the key: git rejects the file; we keep nothing of the line
      return;
    }
    if (in_section) out.push_back(std::move(e));
  }

  void run() {
    while (!end()) {
      skip_space();
      char c = peek();
      if (c == '\n') {
        ++i;
      } else if (c == '#' || c == ';') {
        skip_line();
      } else if (c == '[') {
        if (!header()) {
          in_section = false;
          skip_line();
        }
        // keys may follow the header on the same line
      } else if (alpha(c)) {
        entry();
      } else {
        skip_line();
      }
    }
  }
};

bool truthy(const GitConfigEntry& e) {
  if (!e.has_value) return true;
  std::string v;
  for (char c : e.value) v += lower(c);
  return v == "true" || v == "yes" || v == "on" || (!v.empty() && v != "0" && v.find_first_not_of("0123456789") == std::string::npos);
}

}  // namespace

std::vector<GitConfigEntry> parse_git_config(std::string_view text) {
  Parser p;
  p.s = text;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") p.i = 3;  // git skips a UTF-8 BOM
  p.run();
  return std::move(p.out);
}

GitConfigFacts git_config_facts(const std::vector<GitConfigEntry>& entries) {
  GitConfigFacts f;
  for (const auto& e : entries) {
    if (e.section == "core" && e.subsection.empty() && e.key == "hookspath") {
      f.hooks_path = e.value;
      f.hooks_path_set = true;
    } else if (e.section == "core" && e.subsection.empty() && e.key == "worktree") {
      f.worktree = e.value;
    } else if (e.section == "extensions" && e.subsection.empty() && e.key == "worktreeconfig") {
      f.worktree_config = truthy(e);
    } else if ((e.section == "include" || e.section == "includeif") && e.key == "path" && !e.value.empty()) {
      f.includes.push_back(e.value);
    }
  }
  return f;
}

}  // namespace blaude::sandbox::workspace
