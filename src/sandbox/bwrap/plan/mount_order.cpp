#include "sandbox/bwrap/plan/mount_order.hpp"

#include <map>

#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

enum class Role { Mount, Mark, Skip };  // Mount hides and can be hidden; Mark can only be hidden
struct OpInfo {
  int arity;
  int dst;  // which argument is the sandbox destination (1-based), 0 = none
  Role role;
};

const std::map<std::string, OpInfo>& ops() {
  static const std::map<std::string, OpInfo> m = {
      {"--bind", {2, 2, Role::Mount}},          {"--ro-bind", {2, 2, Role::Mount}},
      {"--dev-bind", {2, 2, Role::Mount}},      {"--bind-try", {2, 2, Role::Mount}},
      {"--ro-bind-try", {2, 2, Role::Mount}},   {"--dev-bind-try", {2, 2, Role::Mount}},
      {"--tmp-overlay", {1, 1, Role::Mount}},   {"--ro-overlay", {1, 1, Role::Mount}},
      {"--overlay", {3, 3, Role::Mount}},       {"--tmpfs", {1, 1, Role::Mount}},
      {"--dev", {1, 1, Role::Mount}},           {"--proc", {1, 1, Role::Mount}},
      {"--mqueue", {1, 1, Role::Mount}},        {"--ro-bind-data", {2, 2, Role::Mount}},
      {"--bind-data", {2, 2, Role::Mount}},     {"--file", {2, 2, Role::Mount}},
      {"--symlink", {2, 2, Role::Mark}},        {"--remount-ro", {1, 1, Role::Mark}},
      {"--dir", {1, 0, Role::Skip}},            {"--chmod", {2, 0, Role::Skip}},
      {"--overlay-src", {1, 0, Role::Skip}},    {"--setenv", {2, 0, Role::Skip}},
      {"--unsetenv", {1, 0, Role::Skip}},       {"--chdir", {1, 0, Role::Skip}},
      {"--hostname", {1, 0, Role::Skip}},       {"--uid", {1, 0, Role::Skip}},
      {"--gid", {1, 0, Role::Skip}},            {"--cap-drop", {1, 0, Role::Skip}},
      {"--cap-add", {1, 0, Role::Skip}},        {"--args", {1, 0, Role::Skip}},
      {"--seccomp", {1, 0, Role::Skip}},        {"--perms", {1, 0, Role::Skip}},
      {"--size", {1, 0, Role::Skip}},           {"--userns", {1, 0, Role::Skip}},
      {"--userns2", {1, 0, Role::Skip}},        {"--pidns", {1, 0, Role::Skip}},
      {"--info-fd", {1, 0, Role::Skip}},        {"--json-status-fd", {1, 0, Role::Skip}},
      {"--block-fd", {1, 0, Role::Skip}},       {"--userns-block-fd", {1, 0, Role::Skip}},
      {"--sync-fd", {1, 0, Role::Skip}},        {"--lock-file", {1, 0, Role::Skip}},
      {"--exec-label", {1, 0, Role::Skip}},     {"--file-label", {1, 0, Role::Skip}},
      {"--argv0", {1, 0, Role::Skip}}};
  return m;
}

bool is_bind(const std::string& op) { return op == "--bind" || op == "--ro-bind" || op == "--bind-try" || op == "--ro-bind-try"; }
bool read_only(const std::string& op) { return op == "--ro-bind" || op == "--ro-bind-try"; }

// The later bind shows the same host path at the hidden one's destination, with the same access
// (more would open a pin; less would break a writable dir such as CLAUDE_CONFIG_DIR).
bool same_view(const MountStep& hidden, const MountStep& by) {
  if (!is_bind(hidden.op) || !is_bind(by.op) || hidden.src.empty() || by.src.empty()) return false;
  if (join(by.src, relative_to(hidden.dst, by.dst)) != hidden.src) return false;
  return read_only(by.op) == read_only(hidden.op);
}

}  // namespace

std::vector<MountStep> mount_steps(const std::vector<std::string>& a) {
  std::vector<MountStep> out;
  for (size_t i = 1; i < a.size() && a[i] != "--"; ++i) {
    auto it = ops().find(a[i]);
    if (it == ops().end()) continue;  // a flag without arguments
    const OpInfo& info = it->second;
    if (info.role != Role::Skip && i + size_t(info.dst) < a.size()) {
      std::string src = is_bind(a[i]) && i + 1 < a.size() ? normalize(a[i + 1]) : "";
      out.push_back({a[i], normalize(a[i + size_t(info.dst)]), src, i, 0});
    }
    i += size_t(info.arity);
  }
  return out;
}

std::vector<Shadowing> shadowed_mounts(const std::vector<std::string>& argv) { return shadowed_mounts(mount_steps(argv)); }

std::vector<Shadowing> shadowed_mounts(const std::vector<MountStep>& steps) {
  std::vector<Shadowing> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    // The last later mount that covers it is the one that wins; report that one.
    for (size_t j = steps.size(); j-- > i + 1;) {
      if (hides(steps[j]) && is_under(steps[i].dst, steps[j].dst)) {
        if (!same_view(steps[i], steps[j])) out.push_back({steps[i], steps[j]});
        break;
      }
    }
  }
  return out;
}

std::string describe(const Shadowing& s) {
  return s.by.op + " " + s.by.dst + " (argv " + std::to_string(s.by.index) + ") hides the earlier " +
         s.hidden.op + " " + s.hidden.dst + " (argv " + std::to_string(s.hidden.index) + ")";
}

}  // namespace blaude::sandbox::bwrap
