#include "net/live.hpp"

#include <algorithm>

#include "common/shown.hpp"

namespace blaude::net {

std::string live_dir(const std::string& rt, std::string& why) {
  if (rt.empty()) {
    why = "$XDG_RUNTIME_DIR is not set, and there is no /run/user/UID of yours with mode 0700";
    return "";
  }
  if (!rt.starts_with("/run/") || rt.find("/..") != std::string::npos || rt.find("/./") != std::string::npos) {
    why = "$XDG_RUNTIME_DIR (" + rt + ") is not under /run, which is the only place no sandbox sees";
    return "";
  }
  std::string d = rt;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + "/blaude";
}

std::string live_runtime_dir(const std::string& xdg, unsigned uid, bool uid_dir_private) {
  if (!xdg.empty()) return xdg;
  return uid_dir_private ? "/run/user/" + std::to_string(uid) : "";
}

std::string live_socket_name(long pid) { return "net-" + std::to_string(pid) + ".sock"; }

long live_socket_pid(const std::string& name) {
  if (!name.starts_with("net-") || !name.ends_with(".sock")) return -1;
  std::string digits = name.substr(4, name.size() - 9);
  if (digits.empty() || digits.size() > 9 || digits[0] == '0' ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(digits);
}

std::variant<long, std::string> pick_session(const std::vector<long>& running, long requested) {
  std::vector<long> r = running;
  std::sort(r.begin(), r.end());
  if (requested > 0) {
    if (std::find(r.begin(), r.end(), requested) != r.end()) return requested;
    return "no blaude session in proxy mode has pid " + std::to_string(requested);
  }
  if (r.empty()) return std::string("no blaude session in proxy mode is running");
  if (r.size() == 1) return r[0];
  std::string list;
  for (long p : r) list += (list.empty() ? "" : ", ") + std::to_string(p);
  return std::to_string(r.size()) + " blaude sessions in proxy mode are running (pids " + list +
         "); say which with --session PID";
}

std::variant<LiveRequest, std::string> parse_live_request(const std::string& line) {
  if (line == "log") return LiveRequest{LiveRequest::Kind::Log, ""};
  if (line.starts_with("allow ") && line.size() > 6) {
    std::string p = line.substr(6);
    if (p.find_first_of(" \t\r\n") != std::string::npos) return "one pattern per request: " + p;
    return LiveRequest{LiveRequest::Kind::Allow, p};
  }
  return "unknown request: " + line.substr(0, 80);
}

std::string live_line(const std::string& text) {
  std::string s = shown(text);
  if (s.size() <= kMaxLiveLine) return s;
  // Cut at a character boundary: shown() leaves only whole UTF-8 sequences.
  size_t cut = kMaxLiveLine - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

}  // namespace blaude::net
