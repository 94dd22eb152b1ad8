#include "sandbox/bwrap/plan/syscall_table.hpp"

#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>

namespace blaude::sandbox::bwrap {

namespace {

// <linux/keyctl.h> and <sys/personality.h> values, spelled here so the table builds where
// those headers are missing (the POSIX-fallback build, macOS's --dry-run of a Linux plan).
constexpr uint64_t kKeySpecUserKeyring = 0xfffffffcu;         // KEY_SPEC_USER_KEYRING, -4
constexpr uint64_t kKeySpecUserSessionKeyring = 0xfffffffbu;  // KEY_SPEC_USER_SESSION_KEYRING, -5
constexpr uint64_t kKeySpecSessionKeyring64 = ~uint64_t(2);   // -3 as a long, as callers pass it
constexpr uint64_t kKeyctlSessionToParent = 18;              // KEYCTL_SESSION_TO_PARENT
constexpr uint64_t kPerLinux32 = 0x0008;
constexpr uint64_t kUname26 = 0x0020000;
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
// Linux's CLONE_NEWUSER, by value: the table is data on every platform (--dry-run prints it).
constexpr uint64_t kCloneNewUser = 0x10000000;
#ifndef AF_PACKET
#define AF_PACKET 17
#endif
#ifndef AF_KEY
#define AF_KEY 15
#endif
#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

ArgTest is(uint8_t arg, uint64_t value) { return {arg, ArgTest::Op::MaskedEq, 0xffffffffu, value}; }
ArgTest has(uint8_t arg, uint64_t bits) { return {arg, ArgTest::Op::MaskedEq, bits, bits}; }
ArgTest low_bits(uint8_t arg, uint64_t mask, uint64_t value) { return {arg, ArgTest::Op::MaskedEq, mask, value}; }
ArgTest not_(uint8_t arg, uint64_t value) { return {arg, ArgTest::Op::Ne, 0, value}; }

std::vector<SyscallRule> make_rules() {
  const char* uring = "io_uring: a second way into the kernel that syscall filters cannot see into, and the kernel "
                      "interface most often used to escalate; libuv and Node probe it and fall back to threads";
  const char* kexec = "replaces the running kernel (needs a capability the sandbox never has: refused even if one leaks)";
  const char* modules = "loads or removes kernel modules (needs a capability the sandbox never has)";
  const char* mounts = "the sandbox's mounts are blaude's: a program with a user namespace of its own could stack "
                       "over, unhide or remount them (nested sandboxes need this: --nested-sandbox)";
  const char* keys = "keys beyond the session's own fresh keyring";
  const char* raw = "raw IP: forged packets from a network namespace the sandbox owns; ICMP (ping) stays";
  std::vector<SyscallRule> r = {
      {"io_uring_setup", {}, ENOSYS, false, "", uring},
      {"io_uring_enter", {}, ENOSYS, false, "", uring},
      {"io_uring_register", {}, ENOSYS, false, "", uring},
      {"bpf", {}, EPERM, false, "", "loads programs into the kernel: unprivileged BPF has been a repeated way to escalate"},
      {"perf_event_open", {}, EPERM, false, "",
       "observes the host kernel and other processes, a frequent kernel exploit path"},
      {"userfaultfd", {}, EPERM, false, "", "stalls the kernel's page faults at will, the usual tool to win a kernel race"},
      {"kexec_load", {}, EPERM, false, "", kexec},
      {"kexec_file_load", {}, EPERM, false, "", kexec},
      {"init_module", {}, EPERM, false, "", modules},
      {"finit_module", {}, EPERM, false, "", modules},
      {"delete_module", {}, EPERM, false, "", modules},
      {"syslog", {}, EPERM, false, "", "the host kernel's log: kernel addresses, other users' events"},
      {"request_key", {}, EPERM, false, "", "has the host run /sbin/request-key to make a key: a program outside the sandbox"},
      {"add_key", {not_(4, kKeySpecSessionKeyring64)}, EPERM, false, "into a keyring other than the session's", keys},
      {"keyctl", {is(1, kKeySpecUserKeyring)}, EPERM, false, "on the user keyring", keys},
      {"keyctl", {is(1, kKeySpecUserSessionKeyring)}, EPERM, false, "on the user session keyring", keys},
      {"keyctl", {is(2, kKeySpecUserKeyring)}, EPERM, false, "linking the user keyring", keys},
      {"keyctl", {is(2, kKeySpecUserSessionKeyring)}, EPERM, false, "linking the user session keyring", keys},
      {"keyctl", {is(0, kKeyctlSessionToParent)}, EPERM, false, "KEYCTL_SESSION_TO_PARENT",
       "replaces the parent's keyring, and the sandbox's first process has its parent outside"},
      {"personality", {{0, ArgTest::Op::FlagsOutside, kPerLinux32 | kUname26, 0}}, EPERM, false,
       "other than PER_LINUX, PER_LINUX32, UNAME26 and the query",
       "flags that turn exploit mitigations off (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO); gdb says "
       "it cannot disable address randomization and goes on"},
      {"ioctl", {is(1, TIOCSTI)}, EPERM, false, "TIOCSTI",
       "types into a terminal's input: the user's shell, where the sandbox shares its terminal"},
      {"ioctl", {is(1, TIOCLINUX)}, EPERM, false, "TIOCLINUX", "the Linux console's paste: types into it too"},
      {"socket", {is(0, AF_PACKET)}, EPERM, false, "AF_PACKET", "reads and forges link-layer frames"},
      {"socket", {is(0, AF_KEY)}, EPERM, false, "AF_KEY", "IPsec key management, a kernel interface with a record of bugs"},
      {"socket", {is(0, AF_BLUETOOTH)}, EPERM, false, "AF_BLUETOOTH", "the host's Bluetooth devices"},
      {"socket", {is(0, AF_VSOCK)}, EPERM, false, "AF_VSOCK", "the hypervisor's and the host VM's sockets"},
      {"socket", {is(0, AF_INET), low_bits(1, 0xf, SOCK_RAW), not_(2, IPPROTO_ICMP)}, EPERM, false,
       "AF_INET, SOCK_RAW, not ICMP", raw},
      {"socket", {is(0, AF_INET6), low_bits(1, 0xf, SOCK_RAW), not_(2, IPPROTO_ICMPV6)}, EPERM, false,
       "AF_INET6, SOCK_RAW, not ICMPv6", raw},
      {"unshare", {has(0, kCloneNewUser)}, EPERM, true, "CLONE_NEWUSER",
       "a user namespace of its own gives a program every capability over the namespaces it makes next "
       "(nested sandboxes need it: --nested-sandbox)"},
      {"clone", {has(0, kCloneNewUser)}, EPERM, true, "CLONE_NEWUSER", "as unshare"},
      {"clone3", {}, ENOSYS, true, "",
       "its flags are in memory a filter cannot read; glibc and Go fall back to clone on ENOSYS"},
      {"setns", {}, EPERM, true, "", "joins another namespace"},
  };
  for (const char* m : {"mount", "umount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig",
                        "fsmount", "fspick", "mount_setattr"})
    r.push_back({m, {}, EPERM, true, "", mounts});
  return r;
}

const char* errno_name(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    default: return "error";
  }
}

}  // namespace

const std::vector<SyscallRule>& syscall_rules() {
  static const std::vector<SyscallRule> rules = make_rules();
  return rules;
}

bool answered_by_shim(const SyscallRule& r) {
  return r.nested_lifts && (std::strcmp(r.call, "unshare") == 0 || std::strcmp(r.call, "clone") == 0);
}

std::vector<const SyscallRule*> active_rules(const SyscallFilter& f) {
  std::vector<const SyscallRule*> out;
  if (!f.on) return out;
  for (const auto& r : syscall_rules())
    if (!(f.nested && r.nested_lifts) && !(f.userns_by_shim && answered_by_shim(r))) out.push_back(&r);
  return out;
}

std::string format_syscall_filter(const SyscallFilter& f) {
  if (!f.on) return {};
  std::string out =
      "# bwrap loads a syscall filter (--seccomp, compiled by blaude at launch; not in the command below)\n"
      "# before the command. It refuses these calls; every other is allowed (ptrace among them: the\n"
      "# sandbox's pid namespace holds only its own processes, so gdb and strace work). Calls through\n"
      "# another ABI of the host (x32, 32-bit x86) end the process.\n";
  if (f.nested) out += "# Nested sandboxes are on (--nested-sandbox): user namespaces, setns and the mount calls are allowed.\n";
  // Rows next to each other with the same answer and reason share a line.
  const auto rows = active_rules(f);
  for (size_t i = 0; i < rows.size();) {
    std::string head;
    size_t j = i;
    for (; j < rows.size() && rows[j]->why == rows[i]->why && rows[j]->error == rows[i]->error; ++j) {
      if (j > i) head += ", ";
      head += rows[j]->call;
      if (*rows[j]->when) head += std::string(" (") + rows[j]->when + ")";
    }
    out += "#   " + head + ": " + errno_name(rows[i]->error) + ", " + rows[i]->why + "\n";
    i = j;
  }
  if (f.userns_by_shim) {
    std::string head;
    for (const auto& r : syscall_rules())
      if (answered_by_shim(r)) head += (head.empty() ? "" : ", ") + std::string(r.call) + " (" + r.when + ")";
    out += "#   " + head +
           ": EPERM from blaude: the exec shim's own filter hands these calls to blaude, which refuses them and "
           "names the program in its exit line (nested sandboxes need them: --nested-sandbox)\n";
  }
  return out;
}

}  // namespace blaude::sandbox::bwrap
