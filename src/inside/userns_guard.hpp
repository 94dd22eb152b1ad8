// Nested user namespaces refused by blaude rather than by bwrap's filter, so that the exit line
// can say which program wanted one and which setting allows it (bwrap/run/userns_watch.hpp).
//
// bwrap's filter (bwrap/plan/syscall_table.hpp) then leaves unshare and clone with CLONE_NEWUSER
// out, and the exec shim, before the command, loads a second filter of its own that sends those
// two calls to a listener (SECCOMP_RET_USER_NOTIF). The shim hands the listener to blaude over
// the socket bwrap passed it (sandbox::kUsernsNotifyEnv) and closes its copies; blaude answers each call
// EPERM and counts it. The order matters: seccomp takes the strictest answer of all the filters,
// and an EPERM in bwrap's would win over the notification.
//
// Fails closed: when the listener cannot be made or handed over (a kernel before 5.0, a socket
// that is gone), the same two calls get EPERM from a plain filter; when not even that loads,
// the shim runs nothing.
#pragma once
#include <string>

#include "sandbox/launch_plan.hpp"

namespace blaude::inside {

// The filter as struct sock_filter[] bytes: the two calls with CLONE_NEWUSER in their flags get
// the notification (notify) or EPERM; every other call, and every other ABI (bwrap's filter
// ends those), is allowed. Empty where this build cannot make it (!sandbox::kUsernsByShim).
std::string userns_filter_program(bool notify);

// Loads the filter into this process (no_new_privs is set already, by bwrap) and sends the
// listener over `sock` (one SCM_RIGHTS message), closing `sock`; falls back to the EPERM form.
// Returns 0 when the notifying filter is in place, -1 when the EPERM one is (the listener could
// not be handed over: the calls are still refused, only not counted), or the errno when neither
// loaded.
int guard_user_namespaces(int sock);

}  // namespace blaude::inside
