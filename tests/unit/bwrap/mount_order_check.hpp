// Test helper: the mount-order invariant (sandbox/mount_order.hpp) as a Catch2 check, for any
// plan a test builds. Reports each shadowed mount by name.
#pragma once
#include <string>
#include <vector>

#include "catch.hpp"
#include "sandbox/bwrap/plan/mount_order.hpp"
#include "sandbox/launch_plan.hpp"

// Over the mount table as bwrap gets it (the binds lifted to the helper left out, as the argv has them).
inline void check_mount_order(const blaude::sandbox::LaunchPlan& plan) {
  REQUIRE(plan.ops);
  for (const auto& s : blaude::sandbox::bwrap::shadowed_mounts(blaude::sandbox::bwrap::steps_of(*plan.ops, 1, false)))
    FAIL_CHECK(blaude::sandbox::bwrap::describe(s));
}
