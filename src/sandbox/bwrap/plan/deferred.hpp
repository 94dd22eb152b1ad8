// The part of a bwrap plan that waits for the workspace scan (HostFacts::probe with defer_scan),
// and for the scan of the user's own sockets in /tmp, which is left to the same moment.
// bwrap's argv does not depend on the scan where the protect helper mounts the protections
// (run/protect_gate.hpp): the scan's findings (nested repositories at any depth, the protected
// names, the links) only become the helper's mounts, its warnings and the audit's start. So the
// scan runs while blaude plans, prepares and starts bwrap, and is waited for after bwrap's spawn,
// before the helper is forked: bwrap cannot pass its gate, and no command can run, before the
// helper has made every mount the finished plan lists (the gate's write end is blaude's until
// then), exactly as when the plan was made in one piece. The result is the one plan() gives with
// the scan done first (tests/unit/sandbox/deferred_test.cpp compares them).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/bwrap/probe/host_facts.hpp"
#include "sandbox/bwrap/plan/plan_builder.hpp"
#include "sandbox/bwrap/plan/protect_layout.hpp"
#include "sandbox/launch_plan.hpp"
#include "sandbox/request.hpp"

namespace blaude::sandbox::bwrap {

// Waits for the scan (when one is pending) and puts its result in f.ws, keeping the identities
// the rest of the probe recorded, and the user's /tmp sockets in f (merge_user_sockets).
void wait_for_scan(HostFacts& f);

class DeferredProtect {
public:
  struct Result {
    std::vector<InnerMount> mounts;   // the helper's, in order (as LaunchPlan::inner_mounts)
    std::vector<std::string> warnings, notes;  // the scan's (LaunchPlan's own were printed already)
    std::string error, hint;          // not "": the launch cannot go on (nothing runs)
    std::shared_ptr<const WorkspaceScan> scan;  // for the audit's start (null when it failed)
    long long wait_us = 0;            // how long finish() waited for the scan
    long long layout_us = 0;          // the rest of finish()
  };

  // What plan() had when it reached the protections (protect.cpp): the request, the host (a
  // copy, sharing the pending scan) and everything built so far, whole (detail::Built: the
  // layout reads the mount table in the ops, the confinement's overlays, the writable binds,
  // the guards planned before the protections, the /tmp shadows and where the user's sockets'
  // go among them).
  struct State {
    SandboxRequest req;
    std::shared_ptr<HostFacts> facts;
    detail::Built built;
  };

  explicit DeferredProtect(State s) : s_(std::move(s)) {}
  // Waits for the scan, then lays out every protection as plan() would have. Once; later calls
  // give the same result.
  const Result& finish();
  // The result when finish() has run, else null (never waits).
  const Result* finished() const { return done_ ? &r_ : nullptr; }

private:
  State s_;
  bool done_ = false;
  Result r_;
};

}  // namespace blaude::sandbox::bwrap
