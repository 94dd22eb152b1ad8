// Listing a directory fast, for the walks that look for repositories at any depth (the sandbox
// probe's and the post-session audit's): one getdents64 into a caller's buffer on Linux (no DIR,
// no allocation per entry), readdir elsewhere; and the kernel's own answer to "can this dir hold
// a subdirectory?", which lets a walk skip listing a leaf.
#pragma once
#include <sys/types.h>

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace blaude {

// A char allocator whose value-initialization leaves the bytes as they are: a DirBuffer of n
// bytes is allocated, not written. A fresh page is only faulted in when getdents64 fills it,
// so /tmp's 1 MiB buffer costs the pages its listing uses (one or two), not 256 zeroed ones
// (each page fault ~50 us on this project's 2-core VM: 256 faults were ~20% of a small
// repository's start in a page-fault profile).
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

// The scratch space of for_each_dir_entry.
using DirBuffer = std::vector<char, UninitAllocator<char>>;

// Calls f(name, d_type) or f(name, d_type, d_ino) for every entry of the open dir `fd` but "."
// and "..", in the kernel's order; fd stays open and positioned at its end. d_type may be
// DT_UNKNOWN (resolve it with fstatat). `buf` is scratch space: on Linux each getdents64 fills it,
// so a buffer as large as the dir lists it in one call, one state of the dir (probe_ipc.cpp's /tmp).
void for_each_dir_entry(int fd, DirBuffer& buf,
                        void (*f)(void* ctx, const char* name, unsigned char type, unsigned long long ino), void* ctx);
template <class F>
void for_each_dir_entry(int fd, DirBuffer& buf, F&& f) {
  for_each_dir_entry(
      fd, buf,
      [](void* c, const char* n, unsigned char t, unsigned long long ino) {
        if constexpr (std::is_invocable_v<F&, const char*, unsigned char, unsigned long long>)
          (*static_cast<std::remove_reference_t<F>*>(c))(n, t, ino);
        else
          (*static_cast<std::remove_reference_t<F>*>(c))(n, t);
      },
      &f);
}

// Which devices keep a directory's link count exact (2 + its subdirectories): ext2/3/4, tmpfs and
// xfs, asked once per device with fstatfs. Any other filesystem (btrfs, overlayfs, NFS, FUSE, ...)
// and every POSIX-fallback build count as "may have subdirs": such dirs are listed as before.
class LeafCheck {
public:
  // true only when the open dir `fd` certainly has no subdirectory: st_nlink == 2 on a
  // filesystem above. The caller still looks for what a leaf CAN hold (a `.git` file or link).
  bool no_subdirs(int fd);

private:
  struct Dev {
    dev_t dev;
    bool exact;
  };
  std::vector<Dev> devs_;
};

}  // namespace blaude
