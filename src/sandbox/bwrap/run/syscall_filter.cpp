#include "sandbox/bwrap/run/syscall_filter.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/data_fd.hpp"
#include "sandbox/bwrap/plan/syscall_table.hpp"

#if defined(__linux__) && defined(BLAUDE_HAVE_SECCOMP)
#include <seccomp.h>
#endif

namespace blaude::sandbox::bwrap {

#if defined(__linux__) && defined(BLAUDE_HAVE_SECCOMP)
namespace {

struct Ctx {
  scmp_filter_ctx c = nullptr;
  ~Ctx() {
    if (c) seccomp_release(c);
  }
};

[[noreturn]] void failed(const std::string& what, int rc) {
  throw std::runtime_error("cannot build the syscall filter: " + what + ": " + std::strerror(-rc));
}

void add(scmp_filter_ctx c, const SyscallRule& r, int nr, const std::vector<scmp_arg_cmp>& cmps) {
  int rc = seccomp_rule_add_exact_array(c, SCMP_ACT_ERRNO(uint32_t(r.error)), nr, unsigned(cmps.size()),
                                        cmps.empty() ? nullptr : cmps.data());
  if (rc < 0) failed(std::string(r.call) + (*r.when ? std::string(" (") + r.when + ")" : ""), rc);
}

// One row as libseccomp rules. FlagsOutside ("(x & ~allowed) != 0 and x != 0xffffffff" on the
// low 32 bits) is not one comparison, and libseccomp takes one comparison per argument, so it
// is covered by rules of two bits each: with k the lowest bit outside `allowed`, every x with a
// bit i outside `allowed` set and bit k clear, and every x with bit k set and some bit j clear.
// Together they are exactly the x that have an outside bit and are not all ones.
void add_row(scmp_filter_ctx c, const SyscallRule& r, int nr) {
  std::vector<scmp_arg_cmp> base;
  const ArgTest* flags = nullptr;
  for (const ArgTest& t : r.tests) {
    switch (t.op) {
      case ArgTest::Op::MaskedEq:
        base.push_back({t.arg, SCMP_CMP_MASKED_EQ, t.mask & 0xffffffffu, t.value & 0xffffffffu});
        break;
      case ArgTest::Op::Ne:
        base.push_back({t.arg, SCMP_CMP_NE, t.value, 0});
        break;
      case ArgTest::Op::FlagsOutside:
        flags = &t;
        break;
    }
  }
  if (!flags) return add(c, r, nr, base);
  const uint32_t outside = ~uint32_t(flags->mask);
  unsigned k = 0;
  while (!(outside & (1u << k))) ++k;
  for (unsigned i = 0; i < 32; ++i) {
    if (i == k) continue;
    auto cmps = base;
    if (outside & (1u << i)) {
      cmps.push_back({flags->arg, SCMP_CMP_MASKED_EQ, (1ull << i) | (1ull << k), 1ull << i});
      add(c, r, nr, cmps);
      cmps.pop_back();
    }
    cmps.push_back({flags->arg, SCMP_CMP_MASKED_EQ, (1ull << i) | (1ull << k), 1ull << k});
    add(c, r, nr, cmps);
  }
}

}  // namespace

std::string compile_syscall_filter(const SyscallFilter& f) {
  Ctx ctx;
  ctx.c = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx.c) throw std::runtime_error("cannot build the syscall filter: seccomp_init failed");
  // A call through another ABI (x32's numbers, int 0x80) would meet none of the rows.
  if (int rc = seccomp_attr_set(ctx.c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS); rc < 0)
    failed("the action for other ABIs", rc);
  // bwrap sets no_new_privs itself before it loads the program.
  if (int rc = seccomp_attr_set(ctx.c, SCMP_FLTATR_CTL_NNP, 0); rc < 0) failed("no_new_privs", rc);
  for (const SyscallRule* r : active_rules(f)) {
    int nr = seccomp_syscall_resolve_name(r->call);
    if (nr == __NR_SCMP_ERROR || nr < 0) continue;  // not a call of this architecture
    add_row(ctx.c, *r, nr);
  }
  UniqueFd fd = data_fd("blaude-seccomp", "");
  if (!fd) throw std::runtime_error(std::string("cannot build the syscall filter: memfd: ") + std::strerror(errno));
  if (int rc = seccomp_export_bpf(ctx.c, fd.get()); rc < 0) failed("export", rc);
  std::string out;
  char buf[4096];
  if (::lseek(fd.get(), 0, SEEK_SET) != 0) throw std::runtime_error("cannot build the syscall filter: lseek");
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("cannot build the syscall filter: read: ") + std::strerror(errno));
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  return out;
}
#else
std::string compile_syscall_filter(const SyscallFilter&) {
  throw std::runtime_error("this blaude was built without libseccomp: it cannot build the syscall filter");
}
#endif

}  // namespace blaude::sandbox::bwrap
