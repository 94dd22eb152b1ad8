// The sandbox's syscall filter as one table: every call (or call with these arguments) it
// refuses, the errno the caller gets, and why. Everything not in the table is allowed: the
// filter is a second wall behind the namespaces, mounts and Landlock, aimed at the kernel
// interfaces a sandboxed program has no use for and that have been the way out of containers
// (io_uring, bpf, user namespaces, TIOCSTI, the new mount API, ...).
//
// Arguments are compared on their low 32 bits wherever the kernel reads them as an int or an
// unsigned int (an ioctl's command, a personality, socket's family and type, clone's and
// unshare's flags, key serials): a 64-bit compare is how Flatpak's TIOCSTI filter was passed
// with the high bits set (CVE-2019-10063). A "not equal" test compares all 64 bits, which can
// only refuse more, never less.
//
// The BPF program is compiled from this table at launch (bwrap/run/syscall_filter.hpp) for the
// native architecture; a call made through another ABI on the same host (x32, ia32) kills the
// process. --dry-run prints the table (format_syscall_filter).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

// One argument test; a row's tests must all hold for the row to refuse the call.
struct ArgTest {
  enum class Op : uint8_t {
    MaskedEq,      // (arg & mask) == value, both within the low 32 bits
    Ne,            // arg != value, all 64 bits (refuses more, never less)
    FlagsOutside,  // (arg & ~mask) != 0 on the low 32 bits, except the query value 0xffffffff
  };
  uint8_t arg = 0;
  Op op = Op::MaskedEq;
  uint64_t mask = 0xffffffffu;
  uint64_t value = 0;
};

struct SyscallRule {
  const char* call;           // the name libseccomp knows; rows for calls the arch lacks are skipped
  std::vector<ArgTest> tests;  // empty: always
  int error;                  // the errno returned (EPERM; ENOSYS where callers probe for support)
  bool nested_lifts;          // not applied when nested namespaces are on (SyscallFilter::nested)
  const char* when;           // the tests in words ("" when always)
  const char* why;
};

// The table, in the order --dry-run prints it.
const std::vector<SyscallRule>& syscall_rules();

// unshare's and clone's CLONE_NEWUSER rows: with SyscallFilter::userns_by_shim, blaude refuses
// those through the exec shim's filter (inside/userns_guard.hpp), and bwrap's program leaves them out.
bool answered_by_shim(const SyscallRule& r);

// The rows bwrap's program holds under these settings.
std::vector<const SyscallRule*> active_rules(const SyscallFilter& f);

// --dry-run's comment block: the filter's rows, one a line, with the errno and the reason
// (empty when the filter is off).
std::string format_syscall_filter(const SyscallFilter& f);

}  // namespace blaude::sandbox::bwrap
