// Shared fixture for the policy tests: a macOS-like host (paths are data; nothing is touched).
#pragma once
#include "sandbox/policy/policy.hpp"

namespace blaude::sandbox::testing {

inline policy::PolicyContext test_context() {
  return {"/Users/alice", "/Users/alice/src/app",
          {"/Users/alice/.local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin",
           "/Users/alice/.cargo/bin", "/Users/alice/tools/bin/", "relative/bin", "/"},
          "/Users/alice/.config/blaude"};
}

}  // namespace blaude::sandbox::testing
