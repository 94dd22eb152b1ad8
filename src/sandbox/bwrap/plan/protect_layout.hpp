// Where the protections go in the sandbox: every host path to protect is mounted at every sandbox
// path through which it is writable (its aliases: the workspace's own bind, a writable /tmp, -m DIR:rw,
// write grants), together with pins on every dir between the alias root and it, so that neither it
// nor a dir above it can be renamed away and replaced. The workspace root itself is pinned at
// every alias that is not its own bind, so the workspace cannot be swapped for a copy with hooks.
// Pure.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/bwrap/plan/gate_args.hpp"
#include "sandbox/bwrap/plan/mount_op.hpp"
#include "sandbox/bwrap/probe/workspace.hpp"

namespace blaude::sandbox::bwrap {

// A writable bind: host (canonical) source → sandbox destination.
struct Alias {
  std::string host;
  std::string sandbox;
};

struct HostGuard {
  std::string path;  // host, normalized
  Guard guard = Guard::ReadOnly;
  std::string why;
};

// The probe's identity of a host path (lstat); nullopt when it was not probed.
using IdentityOf = std::function<std::optional<Identity>(const std::string& host_path)>;

struct ProtectLayout {
  std::vector<InnerMount> mounts;     // in the order to apply (check_inner_mounts holds)
  std::vector<std::string> missing;   // host paths whose identity the probe lacks (a bug: fail closed)
};

// Whether sandbox path `sandbox` shows host path `host` once every mount is made (an alias can be
// covered further down by a later mount: $HOME's tmpfs inside a writable /tmp).
using Shows = std::function<bool(const std::string& sandbox, const std::string& host)>;

// `view_alias`: the host root of an alias that shows the workspace only incidentally (the
// sandbox's rw /tmp around a workspace under /tmp): there the workspace is one Mirror, last (a
// recursive clone of the workspace's own bind with every protection in it, itself a mount
// point), with the dirs above it pinned, instead of every guard again: the same view through
// both paths in O(1) mounts. The caller passes it only where the protect helper runs and no
// other mount lies below the workspace there (the clone would hide that one).
ProtectLayout layout_protections(const std::vector<HostGuard>& guards, const std::vector<Alias>& aliases,
                                 const std::string& workspace, const IdentityOf& identity,
                                 const Shows& shows = {}, const std::string& view_alias = {});

// The host paths layout_protections needs identities of (guards, their parents, every dir up to
// each alias root, the workspace and its ancestors): what the probe must lstat.
std::vector<std::string> paths_to_identify(const std::vector<HostGuard>& guards, const std::vector<Alias>& aliases,
                                           const std::string& workspace);

// The same mounts as bwrap options (the fallback where the helper cannot run, and --dry-run's
// runnable form): --ro-bind / --bind / --tmpfs + --remount-ro.
// With `empty_dirs_as_binds`, an EmptyDir is `--ro-bind HOST PATH` (the launcher creates HOST
// and binds it by descriptor, plan_held.cpp) instead of `--tmpfs PATH --remount-ro PATH`.
Ops as_bwrap_ops(const std::vector<InnerMount>& mounts, bool empty_dirs_as_binds = false);
// Those ops' words.
std::vector<std::string> as_bwrap_options(const std::vector<InnerMount>& mounts, bool empty_dirs_as_binds = false);

// As a bwrap option a mount is a bind of the HOST path, which would hide whatever the sandbox
// already mounted below it ($HOME's tmpfs under a pinned /tmp dir, re-exposing the host's $HOME).
// The mounts that can be written as options after the mount table `steps` without that; each
// other one in `left_out` as (its path, the mount it would hide). The fallback and --dry-run
// both use this.
std::vector<InnerMount> expressible_as_options(const std::vector<MountStep>& steps,
                                               const std::vector<InnerMount>& mounts,
                                               std::vector<std::pair<std::string, std::string>>& left_out);

}  // namespace blaude::sandbox::bwrap
