#include "common/paths.hpp"

#include <vector>

namespace blaude {

std::string normalize(std::string_view path) {
  const bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view seg = path.substr(i, j - i);
    if (seg.empty() || seg == ".") {
    } else if (seg == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(seg);  // a relative path may climb; an absolute one stops at "/"
      }
    } else {
      parts.push_back(seg);
    }
    i = j + 1;
  }
  std::string out;
  if (absolute) out.push_back('/');
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out.push_back('/');
    out.append(parts[k].data(), parts[k].size());
  }
  if (out.empty()) out.push_back('.');
  return out;
}

std::string join(std::string_view a, std::string_view b) {
  if (!b.empty() && b.front() == '/') return normalize(b);
  std::string s(a);
  s += '/';
  s += b;
  return normalize(s);
}

std::string dirname_of(std::string_view path) {
  std::string n = normalize(path);
  size_t k = n.rfind('/');
  if (k == std::string::npos) return ".";
  if (k == 0) return "/";
  return n.substr(0, k);
}

std::string basename_of(std::string_view path) {
  std::string n = normalize(path);
  size_t k = n.rfind('/');
  return k == std::string::npos ? n : n.substr(k + 1);
}

bool is_under(std::string_view path, std::string_view prefix) {
  if (prefix == "/") return !path.empty() && path.front() == '/';
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

bool is_under_any(std::string_view path, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes)
    if (is_under(path, p)) return true;
  return false;
}

std::string relative_to(std::string_view path, std::string_view prefix) {
  if (path.size() <= prefix.size()) return "";
  size_t skip = prefix == "/" ? 1 : prefix.size() + 1;
  return std::string(path.substr(skip));
}

}  // namespace blaude
