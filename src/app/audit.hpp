// The post-session audit (issue 11 class 2), as the app layer sequences it: a snapshot of the
// git repositories under every dir the sandbox can write, taken before the child starts; after
// the child is gone and the terminal restored, a second walk, the comparison, the neutralising
// and the report (stderr and the log). The sandbox cannot reach any of it: it runs in blaude,
// on the host, when the sandbox's processes are dead.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/launch.hpp"
#include "audit/snapshot.hpp"
#include "audit/walk.hpp"
#include "cli/options.hpp"
#include "common/host_env.hpp"
#include "sandbox/bwrap/host_facts.hpp"

namespace blaude::app {

struct AuditSession {
  bool enabled = false;
  audit::WalkInput walk;
  audit::Snapshot before;
};

// The roots: the plan's writable host dirs (the workspace, -m DIR:rw, write grants, ~/.claude),
// not /tmp itself. Off under --allow-protected-writes (the user turned the protections off).
AuditSession audit_begin(const HostEnv& host, const cli::Options& o, const Launch& l);

// Prints the report on stderr (nothing when there is nothing to say) and logs it.
void audit_end(AuditSession& s);

// The probe's walk of the workspace as the audit takes it: only a complete one.
std::optional<audit::PriorWalk> prior_walk(const sandbox::bwrap::WorkspaceScan& ws);

// Roots from writable dirs: canonical, existing dirs, no "/tmp", none inside another. Pure but for
// the realpath/stat of each.
std::vector<std::string> audit_roots(const std::vector<std::string>& writable_dirs);

}  // namespace blaude::app
