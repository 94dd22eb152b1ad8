// Test helper: the mount-order invariant (sandbox/mount_order.hpp) as a Catch2 check, for any
// plan a test builds. Reports each shadowed mount by name.
#pragma once
#include <string>
#include <vector>

#include "catch.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"

inline void check_mount_order(const std::vector<std::string>& argv) {
  for (const auto& s : blaude::sandbox::bwrap::shadowed_mounts(argv)) FAIL_CHECK(blaude::sandbox::bwrap::describe(s));
}
