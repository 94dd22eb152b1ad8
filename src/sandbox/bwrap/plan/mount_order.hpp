// The mount-order invariant of a bwrap argv. bwrap applies mounts in argv order and a mount on
// a path hides everything mounted earlier at or below it: a read-only tool dir bound before a
// writable bind of its parent silently becomes host-writable. This checks a finished argv for
// that over the planner's ops, so the planner (and its tests) can insist that no mount or
// protection is shadowed. Pure.
#pragma once
#include <string>
#include <vector>

#include "sandbox/bwrap/plan/mount_op.hpp"

namespace blaude::sandbox::bwrap {

// An earlier step that a later mount covers (the later one's dst is the same path or an ancestor).
struct Shadowing {
  MountStep hidden;
  MountStep by;
};

// Every step (steps_of, mount_op.hpp) hidden by a later mount, in order of the hidden step. Empty =
// the invariant holds. Not counted: a bind hidden by a later bind that shows the very same host
// path there with the same access (-m /opt/vendor over the read-only /opt/vendor/bin): nothing
// changes inside.
std::vector<Shadowing> shadowed_mounts(const std::vector<MountStep>& steps);

// "--bind /home/u/.config (argv 57) hides the earlier --ro-bind /home/u/.config/nvm (argv 40)"
std::string describe(const Shadowing& s);

}  // namespace blaude::sandbox::bwrap
