// Follows git's config.c (git_parse_source, get_base_var, get_extended_base_var, get_value,
// parse_value) step by step, with git's own character classes: git's isspace is only
// " \t\n\r" (a \f or \v is a syntax error to git), isalpha/isalnum are ASCII only.
#include "common/git_config.hpp"

namespace blaude {

namespace {

bool git_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool git_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool git_alnum(int c) { return git_alpha(c) || (c >= '0' && c <= '9'); }
bool key_char(int c) { return git_alnum(c) || c == '-'; }
char lower(int c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); }

// git's get_next_char: CRLF reads as LF, a lone CR stays; past the end it keeps returning
// '\n' with eof set.
class Reader {
public:
  explicit Reader(std::string_view s) : s_(s) {}
  int next() {
    if (pos_ >= s_.size()) {
      eof_ = true;
      return '\n';
    }
    int c = static_cast<unsigned char>(s_[pos_++]);
    if (c == '\r' && pos_ < s_.size() && s_[pos_] == '\n') {
      ++pos_;
      c = '\n';
    }
    if (c == '\n') ++line_;
    return c;
  }
  bool eof() const { return eof_; }
  int line() const { return line_; }

private:
  std::string_view s_;
  size_t pos_ = 0;
  bool eof_ = false;
  int line_ = 1;
};

// parse_value: quotes toggle, # and ; start a comment outside quotes, a backslash escapes
// n, t, b, itself, a double quote and a newline (continuation); leading and trailing blanks
// are dropped, each inner blank becomes a space (git 2.39; later gits keep tabs, which changes
// no key). A newline inside quotes or an unknown escape is an error.
std::optional<std::string> parse_value(Reader& r) {
  std::string v;
  bool quote = false, comment = false;
  size_t space = 0;
  for (;;) {
    int c = r.next();
    if (c == '\n') {
      if (quote) return std::nullopt;
      return v;
    }
    if (comment) continue;
    if (git_space(c) && !quote) {
      if (!v.empty()) ++space;
      continue;
    }
    if (!quote && (c == ';' || c == '#')) {
      comment = true;
      continue;
    }
    v.append(space, ' ');
    space = 0;
    if (c == '\\') {
      c = r.next();
      switch (c) {
        case '\n': continue;
        case 't': c = '\t'; break;
        case 'b': c = '\b'; break;
        case 'n': c = '\n'; break;
        case '\\':
        case '"': break;
        default: return std::nullopt;
      }
      v.push_back(static_cast<char>(c));
      continue;
    }
    if (c == '"') {
      quote = !quote;
      continue;
    }
    v.push_back(static_cast<char>(c));
  }
}

// get_extended_base_var: [section "sub"], the subsection case-sensitive, \x means x.
bool extended_base(Reader& r, std::string& name, int c) {
  do {
    if (c == '\n') return false;
    c = r.next();
  } while (git_space(c));
  if (c != '"') return false;
  name.push_back('.');
  for (;;) {
    c = r.next();
    if (c == '\n') return false;
    if (c == '"') break;
    if (c == '\\') {
      c = r.next();
      if (c == '\n') return false;
    }
    name.push_back(static_cast<char>(c));
  }
  return r.next() == ']';
}

// get_base_var: [section] or legacy [section.sub] (all lowercased), or on to the extended form.
bool base_var(Reader& r, std::string& name) {
  for (;;) {
    int c = r.next();
    if (r.eof()) return false;
    if (c == ']') return true;
    if (git_space(c)) return extended_base(r, name, c);
    if (!key_char(c) && c != '.') return false;
    name.push_back(lower(c));
  }
}

// get_value: the key's name, blanks, then '=' and a value, or the end of the line (bare key).
bool get_value(Reader& r, std::string& var, int line, std::vector<ConfigEntry>& out) {
  int c;
  for (;;) {
    c = r.next();
    if (r.eof() || !key_char(c)) break;
    var.push_back(lower(c));
  }
  while (c == ' ' || c == '\t') c = r.next();
  std::optional<std::string> value;
  if (c != '\n') {
    if (c != '=') return false;
    value = parse_value(r);
    if (!value) return false;
    // git hands the value on as a C string: it ends at the first NUL.
    if (auto nul = value->find('\0'); nul != std::string::npos) value->resize(nul);
  }
  // git passes the name on as a C string too.
  out.push_back({var.substr(0, var.find('\0')), std::move(value), line});
  return true;
}

}  // namespace

ParsedConfig parse_git_config(std::string_view text) {
  ParsedConfig p;
  Reader r(text);
  std::string var;
  size_t baselen = 0;
  bool comment = false;
  static constexpr std::string_view kBom = "\xef\xbb\xbf";
  size_t bom = 0;  // how much of a leading BOM has matched; npos once past it
  for (;;) {
    int c = r.next();
    if (bom != std::string_view::npos) {
      if (bom < kBom.size() && static_cast<char>(c) == kBom[bom] && !r.eof()) {
        ++bom;
        continue;
      }
      if (bom != 0 && bom < kBom.size()) break;  // git does not tolerate a partial BOM
      bom = std::string_view::npos;
    }
    if (c == '\n') {
      if (r.eof()) return p;
      comment = false;
      continue;
    }
    if (comment || git_space(c)) continue;
    if (c == '#' || c == ';') {
      comment = true;
      continue;
    }
    if (c == '[') {
      var.clear();
      if (!base_var(r, var) || var.empty()) break;
      var.push_back('.');
      baselen = var.size();
      continue;
    }
    if (!git_alpha(c)) break;
    const int line = r.line();
    var.resize(baselen);
    var.push_back(lower(c));
    if (!get_value(r, var, line, p.entries)) break;
  }
  p.error_line = r.line();
  return p;
}

KeyParts split_key(std::string_view key) {
  KeyParts k;
  const size_t first = key.find('.');
  if (first == std::string_view::npos) {
    k.name = std::string(key);
    return k;
  }
  const size_t last = key.rfind('.');
  k.section = std::string(key.substr(0, first));
  k.name = std::string(key.substr(last + 1));
  if (last > first) {
    k.has_subsection = true;
    k.subsection = std::string(key.substr(first + 1, last - first - 1));
  }
  return k;
}

namespace {

// An entry the writer can put back exactly: git reads section and name lowercased, so an
// upper-case letter there can only come from a name git cut at a NUL inside a quoted
// subsection ([url "eX<NUL>..."] k reads as url.eX); written as [url] eX it would read back as
// url.ex, another key. Such an entry is dropped, as any other that cannot be written.
bool writable(const KeyParts& k) {
  if (k.section.empty() || k.name.empty() || !git_alpha(static_cast<unsigned char>(k.name[0]))) return false;
  auto canonical = [](char c) { return key_char(static_cast<unsigned char>(c)) && !(c >= 'A' && c <= 'Z'); };
  for (char c : k.section)
    if (!canonical(c)) return false;
  for (char c : k.name)
    if (!canonical(c)) return false;
  for (char c : k.subsection)
    if (c == '\n' || c == '\0') return false;
  return true;
}

std::string quoted(std::string_view s, bool value) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += value ? "\\n" : "\n"; break;
      case '\t': out += value ? "\\t" : "\t"; break;
      case '\b': out += value ? "\\b" : "\b"; break;
      default: out.push_back(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::string write_git_config(const std::vector<ConfigEntry>& entries, int* dropped) {
  std::string out, header;
  int n = 0;
  for (const auto& e : entries) {
    const KeyParts k = split_key(e.key);
    if (!writable(k)) {
      ++n;
      continue;
    }
    std::string h = "[" + k.section + (k.has_subsection ? " " + quoted(k.subsection, false) : "") + "]\n";
    if (h != header) {
      out += h;
      header = h;
    }
    out += "\t" + k.name;
    if (e.value) out += " = " + quoted(*e.value, true);
    out += "\n";
  }
  if (dropped) *dropped = n;
  return out;
}

}  // namespace blaude
