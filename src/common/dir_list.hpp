// Listing a directory fast, for the walks that look for repositories at any depth (the sandbox
// probe's and the post-session audit's): one getdents64 into a caller's buffer on Linux (no DIR,
// no allocation per entry), readdir elsewhere; and the kernel's own answer to "can this dir hold
// a subdirectory?", which lets a walk skip listing a leaf.
#pragma once
#include <sys/types.h>

#include <type_traits>
#include <vector>

namespace blaude {

// Calls f(name, d_type) or f(name, d_type, d_ino) for every entry of the open dir `fd` but "."
// and "..", in the kernel's order; fd stays open and positioned at its end. d_type may be
// DT_UNKNOWN (resolve it with fstatat). `buf` is scratch space: on Linux each getdents64 fills it,
// so a buffer as large as the dir lists it in one call, one state of the dir (probe_ipc.cpp's /tmp).
void for_each_dir_entry(int fd, std::vector<char>& buf,
                        void (*f)(void* ctx, const char* name, unsigned char type, unsigned long long ino), void* ctx);
template <class F>
void for_each_dir_entry(int fd, std::vector<char>& buf, F&& f) {
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
