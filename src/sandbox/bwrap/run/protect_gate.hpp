// Protected-path mounts made by blaude inside bwrap's namespaces, after bwrap's own mounts and
// before the command starts. bwrap re-reads /proc/self/mountinfo after every bind, so each bind
// costs O(mounts so far) and a protection list of a few hundred binds took hundreds of ms; here
// every protection costs a handful of O(1) syscalls. And each one is mounted from the very object
// whose identity the probe recorded, so nothing swapped in after the probe is ever mounted.
//
// How: bwrap's last ops are a gate (`--file G`, a pipe this side holds) and a proof
// (`--remount-ro` of a dir only the helper creates). A helper process waits until bwrap reads the
// gate (every earlier op is done), enters bwrap's user and mount namespaces (bwrap's user
// namespace is owned by the user, so no privilege is needed), mounts, creates the proof and
// closes the gate. If the helper fails or dies, the proof is missing and bwrap exits before the
// command runs.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "sandbox/bwrap/plan/gate_args.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

class ProtectGate {
public:
  // Makes the pipes (bwrap's ends: info_fd, gate_fd) and fills the gate; the helper is not
  // running yet. `mounts` must outlive the gate. Throws std::system_error.
  static ProtectGate start(const std::vector<InnerMount>& mounts, std::chrono::milliseconds timeout);
  // Forks the helper (blaude's child; outcome() reaps it). Called right after bwrap was started:
  // bwrap cannot pass the gate before the helper closes it (this side holds the gate's write end
  // until then), and the fork's copy-on-write faults in blaude then overlap bwrap's own set-up
  // instead of delaying its start. If the fork fails, the gate is closed without the proof and
  // bwrap stops before the command (outcome() says why).
  void launch_helper();
  // Instead of launch_helper(), when the mounts cannot be made (a deferred plan that failed,
  // bwrap/deferred.hpp): the gate is closed without the proof, bwrap stops before the command,
  // and outcome() gives `why`.
  void fail(const std::string& why);
  ProtectGate() = default;
  ProtectGate(ProtectGate&& o) noexcept
      : info_w_(std::move(o.info_w_)), gate_r_(std::move(o.gate_r_)), status_r_(std::move(o.status_r_)),
        info_r_(std::move(o.info_r_)), gate_w_(std::move(o.gate_w_)), status_w_(std::move(o.status_w_)),
        mounts_(o.mounts_), deadline_us_(o.deadline_us_), report_(std::move(o.report_)), ok_(o.ok_),
        helper_(o.helper_) {
    o.helper_ = -1;
  }
  ProtectGate& operator=(ProtectGate&&) = delete;
  ~ProtectGate();

  int info_fd() const { return info_w_.get(); }  // → bwrap --info-fd
  int gate_fd() const { return gate_r_.get(); }  // → bwrap --file
  // bwrap holds its ends now (or will never run): drop ours, so the helper sees bwrap's exit.
  void release_child_ends();
  // After bwrap exited: "" when the helper applied every mount, else its account of what failed
  // (nothing ran then: bwrap stops at the missing proof).
  std::string outcome();
  // The helper's one-line report ("12 mounts in 0.41 ms" or the failure), "" before it ends.
  const std::string& report() const { return report_; }

private:
  void reap(bool wait = true);
  UniqueFd info_w_, gate_r_, status_r_;
  UniqueFd info_r_, gate_w_, status_w_;  // the helper's ends, until it is forked
  const std::vector<InnerMount>* mounts_ = nullptr;
  long long deadline_us_ = 0;
  std::string report_;
  bool ok_ = false;
  pid_t helper_ = -1;
};

}  // namespace blaude::sandbox::bwrap
