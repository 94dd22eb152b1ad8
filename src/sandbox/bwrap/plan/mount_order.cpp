#include "sandbox/bwrap/plan/mount_order.hpp"

#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

bool is_bind_op(const std::string& op) { return op == "--bind" || op == "--ro-bind" || op == "--bind-try" || op == "--ro-bind-try"; }
bool read_only(const std::string& op) { return op == "--ro-bind" || op == "--ro-bind-try"; }

// The later bind shows the same host path at the hidden one's destination, with the same access
// (more would open a pin; less would break a writable dir such as CLAUDE_CONFIG_DIR).
bool same_view(const MountStep& hidden, const MountStep& by) {
  if (!is_bind_op(hidden.op) || !is_bind_op(by.op) || hidden.src.empty() || by.src.empty()) return false;
  if (join(by.src, relative_to(hidden.dst, by.dst)) != hidden.src) return false;
  return read_only(by.op) == read_only(hidden.op);
}

}  // namespace

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
