// Test helper: a host as the probe leaves it while the workspace scan still runs on its thread
// (HostFacts::ws_pending), made from the host the finished scan describes. For the deferred
// plan's tests (deferred.hpp) and the planner's golden matrix.
#pragma once
#include <memory>

#include "fake_host.hpp"

namespace blaude::testing {

// The same host as the probe leaves it with the scan on its thread: only the workspace's own
// identities (and its parents') known at plan time, the rest arriving with the scan; the user's
// /tmp sockets (when it has any) too.
inline HostFacts pending_host(const HostFacts& done) {
  HostFacts f = done;
  f.ws = sandbox::bwrap::WorkspaceScan{};
  for (const auto& [path, id] : done.ws.ids)
    if (path == done.cwd || (done.cwd.rfind(path, 0) == 0 && (path == "/" || done.cwd[path.size()] == '/')))
      f.ws.ids.emplace(path, id);
  sandbox::bwrap::WorkspaceScan scan = done.ws;
  if (done.tmp_user_sockets.empty()) {
    f.ws_pending = std::make_shared<sandbox::bwrap::PendingScan>([scan] { return scan; });
    return f;
  }
  sandbox::bwrap::UserSockets us;
  us.sockets = {done.tmp_user_sockets.rbegin(), done.tmp_user_sockets.rend()};  // unsorted, as found
  us.dirs = done.tmp_user_socket_dirs;
  for (const auto& p : us.sockets) us.ids[p] = done.tmp_ids.at(p), f.tmp_ids.erase(p);
  for (const auto& p : us.dirs) us.ids[p] = done.tmp_ids.at(p), f.tmp_ids.erase(p);
  us.warnings = {done.probe_warnings.back()};
  f.probe_warnings.pop_back();
  f.tmp_user_sockets.clear();
  f.tmp_user_socket_dirs.clear();
  f.tmp_user_sockets_pending = true;
  f.ws_pending = std::make_shared<sandbox::bwrap::PendingScan>([scan] { return scan; }, [us] { return us; });
  return f;
}

}  // namespace blaude::testing
