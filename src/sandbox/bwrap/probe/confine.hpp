// What blaude does to the sandbox's first process itself, in the forked child just before it
// execs bwrap, where bwrap has no option for it:
//   - a fresh session keyring (the user's keys are not inherited);
//   - for bwrap < 0.9 (no --overlay): blaude's own user+mount namespace with an overlayfs on each
//     listed dir, so writes there are discarded as the seed promises; bwrap then --binds them;
//   - Landlock scoping (ABI >= 6): no connect() to an abstract unix socket and no signal to a
//     process outside the sandbox (X11's @/tmp/.X11-unix/X0, an abstract D-Bus, ...).
// prepare() runs in the parent and lays out every byte the child needs; apply_confinement() makes
// only syscalls (no allocation, async-signal-safe) and fails closed: the child must not exec
// bwrap when a step it was asked for did not happen.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

inline constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
inline constexpr uint64_t kScopeSignal = 1ULL << 1;              // LANDLOCK_SCOPE_SIGNAL

// Everything apply_confinement() reads, laid out before the fork.
class PreparedConfinement {
public:
  PreparedConfinement() = default;
  explicit PreparedConfinement(const Confinement& c);
  const Confinement& spec() const { return spec_; }

private:
  friend int apply_confinement(const PreparedConfinement& p, int* failed_step);
  Confinement spec_;
  std::string uid_map_, gid_map_;
  std::vector<std::string> upper_, work_;
  mutable std::vector<char> options_;  // overlay mount options, filled in by the child
};

// Steps, for the error message: which one failed.
enum ConfineStep : int { kStepKeyring = 1, kStepUserns, kStepOverlay, kStepLandlock };
const char* confine_step_name(int step);

// In the forked child only. 0 on success, else an errno with *failed_step set.
int apply_confinement(const PreparedConfinement& p, int* failed_step);

// For --dry-run: what blaude does before bwrap, as comment lines ("" when nothing). The
// printed bwrap command does not include it.
std::string format_confinement(const Confinement& c);

// Host probes (cheap; HostFacts calls them once).
int landlock_abi();  // 0 when Landlock is unavailable or disabled
// Whether apply_confinement() can make an overlay here: forks a child that tries it on a
// throwaway tmpfs (about 1 ms). Only asked when bwrap has no overlays.
bool own_overlay_works(std::string* why);

}  // namespace blaude::sandbox::bwrap
