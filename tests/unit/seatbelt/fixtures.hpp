// Shared fixtures of the Seatbelt tests: a macOS host as plain values (alice on an Apple-silicon
// Mac, claude from the native installer, Xcode's Command Line Tools), the decision for a
// request, and the profile read back as forms (sbpl_reader.hpp) to ask what it allows.
#pragma once
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include "catch.hpp"
#include "sandbox/request.hpp"
#include "sandbox/seatbelt/context.hpp"
#include "sandbox/seatbelt/host.hpp"
#include "sandbox/seatbelt/profile.hpp"
#include "sandbox/workspace/repo_scan.hpp"
#include "seatbelt/sbpl_reader.hpp"

namespace blaude::sandbox::seatbelt::testing {

inline constexpr const char* kHome = "/Users/alice";
inline constexpr const char* kProject = "/Users/alice/src/app";
inline constexpr const char* kTemp = "/private/var/folders/xy/abc123/T";

inline SeatbeltHost mac_host() {
  SeatbeltHost h;
  h.sandbox_exec = kSandboxExec;
  h.home = h.home_real = kHome;
  h.project = kProject;
  h.user = "alice";
  h.darwin_temp = kTemp;
  h.darwin_cache = "/private/var/folders/xy/abc123/C";
  // (Appended, not `std::string(kTemp) + "/"`: GCC 12 at -O1 warns -Warray-bounds falsely on
  // that temporary in some translation units, and CI builds with -Werror.)
  h.tmpdir_env = kTemp;
  h.tmpdir_env += '/';
  h.developer_dirs = {"/Library/Developer/CommandLineTools"};
  h.program = "claude";
  h.program_found = "/Users/alice/.local/bin/claude";
  h.program_real = "/Users/alice/.local/share/claude/versions/2.1.3";
  h.claude_config_dir = "/Users/alice/.claude";
  // What the workspace scan finds in a plain repository.
  const std::string project = kProject;
  h.protect = {{project + "/.git/config", false, "config"}, {project + "/.git/hooks", true, "hooks"}};
  return h;
}

inline SandboxRequest claude_request() {
  SandboxRequest r;
  r.command = {"claude", "--dangerously-skip-permissions"};
  return r;
}

inline SeatbeltDecision decide(const SeatbeltHost& h, const SandboxRequest& r, bool own_pty = true,
                               const std::string& policy_file = "") {
  auto d = make_context(h, r, own_pty, "/dev/ttys004", policy_file);
  if (auto* e = std::get_if<SeatbeltPlanError>(&d)) FAIL(e->what);
  return std::get<SeatbeltDecision>(d);
}

inline std::vector<sbpl::Node> forms_of(const SeatbeltContext& c, const Grants& g = {}) {
  return sbpl::read_all(seatbelt_profile(g, c));
}

inline std::string golden_path(const char* name) {
  return (std::filesystem::path(__FILE__).parent_path() / "golden" / name).string();
}

inline std::string read_text(const std::string& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The profile must equal golden/<name>; BLAUDE_UPDATE_GOLDEN=1 rewrites the file instead.
inline void check_golden(const char* name, const std::string& profile) {
  const auto path = golden_path(name);
  if (std::getenv("BLAUDE_UPDATE_GOLDEN")) std::ofstream(path) << profile;
  INFO("golden file " << path << " (BLAUDE_UPDATE_GOLDEN=1 rewrites it)");
  CHECK(profile == read_text(path));
}

// A fake host file system for the repository scan: files with content, dirs, symlinks.
struct FakeFs : workspace::GitFs {
  std::map<std::string, std::string> files, links;
  std::set<std::string> dirs;
  FakeFs& dir(const std::string& p) {
    for (std::string a = p; a.size() > 1; a = a.substr(0, a.rfind('/'))) dirs.insert(a);
    return *this;
  }
  FakeFs& file(const std::string& p, const std::string& c = "") {
    dir(p.substr(0, p.rfind('/')));
    files[p] = c;
    return *this;
  }
  FakeFs& link(const std::string& p, const std::string& t) {
    dir(p.substr(0, p.rfind('/')));
    links[p] = t;
    return *this;
  }
  Identity lstat(const std::string& p) override {
    if (files.count(p)) return {1, 1, S_IFREG};
    if (links.count(p)) return {1, 1, S_IFLNK};
    if (dirs.count(p)) return {1, 1, S_IFDIR};
    return {};
  }
  std::optional<std::string> read(const std::string& p) override {
    auto it = files.find(real(p));
    return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  std::string real(std::string p) {
    // Lexically: no ".." handling beyond a trailing "/..".
    for (int i = 0; i < 8; ++i) {
      auto it = links.find(p);
      if (it == links.end()) break;
      p = it->second[0] == '/' ? it->second : p.substr(0, p.rfind('/')) + "/" + it->second;
    }
    std::vector<std::string> parts;
    std::stringstream ss(p);
    for (std::string c; std::getline(ss, c, '/');) {
      if (c.empty() || c == ".") continue;
      if (c == "..") {
        if (!parts.empty()) parts.pop_back();
      } else {
        parts.push_back(c);
      }
    }
    std::string out;
    for (auto& c : parts) out += "/" + c;
    return out.empty() ? "/" : out;
  }
  std::string realpath(const std::string& p) override {
    std::string r = real(p);
    return lstat(r).type ? r : "";
  }
  std::vector<std::string> list(const std::string& d) override {
    std::set<std::string> names;
    auto add = [&](const std::string& p) {
      if (p.size() > d.size() + 1 && p.compare(0, d.size() + 1, d + "/") == 0) {
        std::string rest = p.substr(d.size() + 1);
        names.insert(rest.substr(0, rest.find('/')));
      }
    };
    for (auto& [p, c] : files) add(p);
    for (auto& [p, c] : links) add(p);
    for (auto& p : dirs) add(p);
    return {names.begin(), names.end()};
  }
};

}  // namespace blaude::sandbox::seatbelt::testing
