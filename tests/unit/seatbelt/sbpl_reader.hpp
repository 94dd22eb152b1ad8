// Test helper: a small reader for the SBPL we generate (s-expressions, quoted strings with
// backslash escapes, #"regex" literals, ; comments) and a last-match-wins evaluator for file operations
// with literal/subpath/regex filters. It lets tests check what a profile *means*, not only its
// text, and would notice an injected rule.
#pragma once
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::sandbox::sbpl {

struct Node {
  bool is_list = false;
  bool is_string = false;  // "..." (atom holds the unescaped value)
  bool is_regex = false;   // #"..."
  std::string atom;
  std::vector<Node> kids;

  std::string head() const { return is_list && !kids.empty() ? kids[0].atom : ""; }
  std::string str() const {
    if (!is_list) {
      if (is_regex) return "#\"" + atom + "\"";
      if (!is_string) return atom;
      std::string s = "\"";
      for (char c : atom) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
      }
      return s + "\"";
    }
    std::string s = "(";
    for (size_t i = 0; i < kids.size(); ++i) s += (i ? " " : "") + kids[i].str();
    return s + ")";
  }
};

class Reader {
public:
  explicit Reader(std::string_view t) : t_(t) {}
  std::vector<Node> all() {
    std::vector<Node> out;
    for (skip(); i_ < t_.size(); skip()) out.push_back(node());
    return out;
  }

private:
  void skip() {
    while (i_ < t_.size()) {
      if (t_[i_] == ';') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
      } else if (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t') {
        ++i_;
      } else {
        break;
      }
    }
  }
  Node node() {
    Node n;
    if (t_[i_] == '(') {
      ++i_;
      n.is_list = true;
      for (skip(); i_ < t_.size() && t_[i_] != ')'; skip()) n.kids.push_back(node());
      if (i_ >= t_.size()) throw std::runtime_error("unbalanced (");
      ++i_;
    } else if (t_[i_] == ')') {
      throw std::runtime_error("unbalanced )");
    } else if (t_[i_] == '"') {
      n.is_string = true;
      for (++i_; i_ < t_.size() && t_[i_] != '"'; ++i_) {
        if (t_[i_] == '\\') ++i_;
        if (i_ < t_.size()) n.atom += t_[i_];
      }
      if (i_ >= t_.size()) throw std::runtime_error("unterminated string");
      ++i_;
    } else if (t_.substr(i_, 2) == "#\"") {
      n.is_regex = true;
      for (i_ += 2; i_ < t_.size() && t_[i_] != '"'; ++i_) n.atom += t_[i_];
      if (i_ >= t_.size()) throw std::runtime_error("unterminated regex");
      ++i_;
    } else {
      while (i_ < t_.size() && std::string_view(" \n\t()\";").find(t_[i_]) == std::string_view::npos) n.atom += t_[i_++];
    }
    return n;
  }
  std::string_view t_;
  size_t i_ = 0;
};

inline std::vector<Node> read_all(std::string_view text) { return Reader(text).all(); }

inline bool op_covers(const std::string& rule_op, const std::string& op) {
  if (rule_op == op || rule_op == "default") return true;
  return rule_op.ends_with('*') && op.starts_with(rule_op.substr(0, rule_op.size() - 1)) &&
         !op.ends_with('*');
}

inline bool filter_matches(const Node& f, const std::string& path) {
  // (remote unix-socket F) / (local unix-socket F): F over the socket's path; without F, every
  // unix socket.
  if ((f.head() == "remote" || f.head() == "local") && f.kids.size() >= 2 && f.kids[1].atom == "unix-socket")
    return f.kids.size() == 2 || filter_matches(f.kids[2], path);
  if (f.head() == "path-literal") return f.kids.at(1).atom == path;
  if (f.head() == "path-regex") return std::regex_search(path, std::regex(f.kids.at(1).atom));
  if (f.head() == "require-all") {
    for (size_t i = 1; i < f.kids.size(); ++i)
      if (!filter_matches(f.kids[i], path)) return false;
    return true;
  }
  if (f.head() == "literal") return f.kids.at(1).atom == path;
  if (f.head() == "subpath") {
    const auto& p = f.kids.at(1).atom;
    if (p == "/") return true;
    return path == p || (path.starts_with(p) && path[p.size()] == '/');
  }
  if (f.head() == "regex") return std::regex_search(path, std::regex(f.kids.at(1).atom));
  return false;  // other filters (target, ip, ...) never match a path here
}

// Last matching allow/deny rule for `op` on `path` wins; no match = denied.
inline bool decide(const std::vector<Node>& forms, const std::string& op, const std::string& path) {
  bool allowed = false;
  for (const auto& f : forms) {
    const auto verb = f.head();
    if (verb != "allow" && verb != "deny") continue;
    bool op_ok = false, has_filter = false, filter_ok = false;
    for (size_t i = 1; i < f.kids.size(); ++i) {
      const auto& k = f.kids[i];
      if (!k.is_list) {
        // An op covers the query if equal, or a wildcard over it ("file-write*" covers itself).
        if (k.atom == op || op_covers(k.atom, op)) op_ok = true;
      } else {
        has_filter = true;
        if (filter_matches(k, path)) filter_ok = true;
      }
    }
    if (op_ok && (!has_filter || filter_ok)) allowed = verb == "allow";
  }
  return allowed;
}

}  // namespace blaude::sandbox::sbpl
