#include "asciinema/detect.hpp"

#include <string_view>

namespace blaude::asciinema {

namespace {

std::string base_name(std::string_view p) {
  size_t s = p.rfind('/');
  return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

bool is_python(std::string_view name) { return name.rfind("python", 0) == 0; }

std::string_view strip_zeros(std::string_view s) {
  while (s.size() > 1 && s.front() == '0') s.remove_prefix(1);
  return s;
}

}  // namespace

std::string fnv1a128_hex(std::string_view text) {
  using u128 = unsigned __int128;
  // Offset basis 144066263297769815596495629667062367629, prime 2^88 + 2^8 + 0x3b.
  u128 h = (static_cast<u128>(0x6c62272e07bb0142ULL) << 64) | 0x62b821756295c58dULL;
  const u128 prime = (static_cast<u128>(1) << 88) | 0x13bU;
  for (unsigned char c : text) {
    h ^= c;
    h *= prime;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kHex[static_cast<unsigned>(h & 0xf)]);
    h >>= 4;
  } while (h != 0);
  return out;
}

bool session_id_matches(std::string_view value, pid_t pid) {
  if (value.empty() || pid <= 0) return false;
  std::string lower;
  for (char c : value) lower += static_cast<char>((c >= 'A' && c <= 'F') ? c - 'A' + 'a' : c);
  return strip_zeros(lower) == fnv1a128_hex(std::to_string(pid));
}

bool looks_like_asciinema(const ProcInfo& p) {
  if (p.stat.comm == "asciinema") return true;
  if (!p.argv.empty() && base_name(p.argv[0]) == "asciinema") return true;
  // An interpreter running asciinema: `python3 /usr/bin/asciinema` or `python3 -m asciinema`.
  if (p.argv.size() >= 2 && (is_python(p.stat.comm) || is_python(base_name(p.argv[0])))) {
    for (size_t i = 1; i < p.argv.size(); ++i) {
      const std::string& a = p.argv[i];
      if (a == "-m" && i + 1 < p.argv.size()) return p.argv[i + 1] == "asciinema";
      if (!a.empty() && a[0] == '-') continue;  // other interpreter flags
      std::string b = base_name(a);
      return b == "asciinema" || (b == "__main__.py" && a.find("/asciinema/") != std::string::npos);
    }
  }
  return false;
}

Detection find_recorder(const Snapshot& snap, const RecorderEnv& env) {
  Detection d;
  bool v2 = env.rec && *env.rec == "1";
  bool v3 = env.session && !env.session->empty();
  if (!v2 && !v3) {
    d.reason = "not recording: neither ASCIINEMA_REC=1 nor ASCIINEMA_SESSION is set";
    return d;
  }
  for (size_t i = 0; i < snap.ancestors.size(); ++i) {
    const ProcInfo& p = snap.ancestors[i];
    bool match = v3 ? session_id_matches(*env.session, p.stat.pid)
                    : looks_like_asciinema(p);
    if (!match) continue;
    if (!snap.leader_ppid || *snap.leader_ppid != p.stat.pid) {
      d.reason = "asciinema (pid " + std::to_string(p.stat.pid) +
                 ") is an ancestor but does not own blaude's terminal (its session leader's "
                 "parent is another process)";
      return d;
    }
    d.recorder = p;
    if (i + 1 < snap.ancestors.size()) d.parent = snap.ancestors[i + 1];
    d.reason = std::string("recorder is pid ") + std::to_string(p.stat.pid) + " (" +
               (v3 ? "ASCIINEMA_SESSION matches its pid" : "ASCIINEMA_REC=1, comm/argv") + ")";
    return d;
  }
  d.reason = v3 ? "ASCIINEMA_SESSION is set but no ancestor's pid hashes to it"
                : "ASCIINEMA_REC=1 but no ancestor looks like asciinema";
  return d;
}

}  // namespace blaude::asciinema
