// The default mode's own network namespace, where the kernel cannot keep the sandbox from the
// host's abstract unix sockets (Landlock below ABI 6: Linux < 6.12). Abstract sockets belong to
// a network namespace, so a namespace of the sandbox's own closes them all (the X server's
// @/tmp/.X11-unix/X0, an abstract D-Bus bus). pasta (package passt) connects that namespace to
// the host's network with nothing lost: outbound TCP and UDP to any port, DNS, IPv6, ping, and
// the host's loopback ports at the namespace's own loopback (-T auto -U auto: the ports bound on
// the host, rescanned every second).
//
// How it is joined: bwrap makes the namespace (--unshare-net); the first thing to run inside is
// blaude's binary (`kSandboxExe kNetnsCommand FD -- CMD…`), which sends the namespace (an open
// /proc/self/ns/net) over an inherited socketpair and waits. On the host, NetnsLink starts
// pasta on that namespace, as its owning user namespace's owner (the user, no privilege), and
// answers once pasta has set it up; then the command runs. pasta is blaude's child (killed with
// the thread that started it, and at the session's end).
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/unique_fd.hpp"

namespace blaude::net {

inline constexpr const char* kNetnsCommand = "__net-attach";

struct NetnsFacts {
  int landlock_abi = 0;       // 6+: Landlock scopes abstract sockets; no namespace is needed
  bool bwrap_setuid = false;  // its namespaces belong to root: pasta cannot join them
  std::string pasta;          // the pasta binary found, "" when none
  std::string tun_problem;    // why /dev/net/tun cannot be opened, "" when it can
  std::string switch_value;   // BLAUDE_NETNS: "off" keeps the host's network (the tests' control)
};

struct NetnsChoice {
  bool isolate = false;
  std::string warning;  // when the host's abstract sockets stay reachable: why, and the fix
};

// Whether a default-mode sandbox gets its own network namespace joined to the host's network by
// pasta. Pure.
NetnsChoice choose_netns(const NetnsFacts& f);

// The sandbox's resolv.conf in its own namespace, or "" to keep the host's. A stub resolver on a
// loopback address of its own (systemd-resolved's 127.0.0.53) is the host's loopback, out of
// the namespace's reach (pasta forwards ports of 127.0.0.1 and ::1 only): the upstream servers
// the stub uses (`upstream`: /run/systemd/resolve/resolv.conf) are named instead. Pure.
std::string netns_resolv(const std::string& host_resolv, const std::string& upstream);

// What bwrap gets (after its mounts) and what runs before the command. `token` stands for the
// channel's descriptor in the prefix until NetnsLink::start replaces it. Pure.
std::vector<std::string> netns_bwrap_args(const std::string& host_exe);
std::vector<std::string> netns_prefix(const std::string& token);
// pasta on the namespace open at `netns_fd` (in the user namespace open at `userns_fd`), the
// daemon's pid written to `pid_fd` once the namespace is set up; pasta stays in the foreground
// (blaude's child). Pure.
std::vector<std::string> pasta_argv(const std::string& pasta, int userns_fd, int netns_fd, int pid_fd);

// The host side for one session. start() makes the channel (its child end goes to keep_fds and
// replaces `token` in argv) and a thread that waits for the namespace, runs pasta on it and
// answers the sandbox. finish() stops pasta; it returns why the namespace could not be connected
// ("" when it was, or when the sandbox never asked: bwrap failed before).
class NetnsLink {
public:
  static std::variant<std::unique_ptr<NetnsLink>, std::string> start(const std::string& pasta, const std::string& token,
                                                                      std::vector<std::string>& argv,
                                                                      std::vector<int>& keep_fds);
  std::string finish();
  ~NetnsLink();

private:
  NetnsLink() = default;
  void run(std::string pasta);
  UniqueFd parent_, child_;    // the channel
  UniqueFd stop_r_, stop_w_;   // finish() closes stop_w_
  std::thread thread_;
  std::string failure_;        // written by the thread, read after join
};

// Inside the sandbox: `kNetnsCommand FD -- CMD…` sends the namespace over FD, waits for the
// host's answer, then runs CMD through `exec` (returns only on failure: the exit code).
// Without a usable answer nothing runs (exit 1; the host says why after the session).
int netns_attach_main(const std::vector<std::string>& args, int (*exec)(std::vector<std::string>& command));

}  // namespace blaude::net
