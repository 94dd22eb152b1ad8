// Platform-neutral display of a policy: what --print-policy prints and what the trust prompt
// shows. Pure.
#pragma once
#include <string>

#include "sandbox/policy/policy.hpp"

namespace blaude::sandbox::policy {

struct GrantDiff {
  Grants added;
  Grants removed;
  bool empty() const { return added.empty() && removed.empty(); }
};

// One line per normalised grant: "  exec   /path   (origin)", highest risk first.
std::string format_grants(const Grants& grants);

// Compares by (access, path); origins are ignored (moving a line is not a change).
GrantDiff diff_grants(const Grants& before, const Grants& after);

// "  + write  /path" / "  - read   /path" lines; "  (no change in grants)" when empty.
std::string format_diff(const GrantDiff& diff);

// Names of what stays protected whatever a policy says (same list on both backends).
std::string protected_summary();
// What blaude does around every session whatever a policy says (audit, host IPC).
std::string session_guards_summary();

}  // namespace blaude::sandbox::policy
