#include "common/dir_list.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.hpp"
#if BLAUDE_LINUX_CALLS
#include <sys/syscall.h>
#include <sys/vfs.h>
#endif

namespace blaude {

namespace {

#if BLAUDE_LINUX_CALLS
struct Dirent64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// The filesystems whose directories count their subdirectories in st_nlink (each subdir's ".."
// is a link), as the kernel keeps it: ext4 (and ext2/3, the same magic), tmpfs, xfs. gnulib's
// fts trusts more (its leaf optimization is off only for unknown, AFS, CIFS, NFS and proc);
// this list is the short one on purpose.
bool exact_link_count(int fd) {
  struct statfs s;
  if (::fstatfs(fd, &s) != 0) return false;
  switch (static_cast<unsigned long>(s.f_type)) {
    case 0xEF53UL:      // EXT2/3/4_SUPER_MAGIC
    case 0x01021994UL:  // TMPFS_MAGIC
    case 0x58465342UL:  // XFS_SUPER_MAGIC
      return true;
    default:
      return false;
  }
}
#endif

bool dot_or_dotdot(const char* n) { return n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)); }

}  // namespace

void for_each_dir_entry(int fd, DirBuffer& buf, void (*f)(void*, const char*, unsigned char, unsigned long long),
                        void* ctx) {
#if BLAUDE_LINUX_CALLS
  if (buf.size() < 4096) buf.resize(32 * 1024);
  for (;;) {
    long n = ::syscall(SYS_getdents64, fd, buf.data(), buf.size());
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* e = reinterpret_cast<Dirent64*>(buf.data() + off);
      off += e->d_reclen;
      if (!dot_or_dotdot(e->d_name)) f(ctx, e->d_name, e->d_type, e->d_ino);
    }
  }
#else
  (void)buf;
  int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (!d) {
    if (dup >= 0) ::close(dup);
    return;
  }
  while (dirent* e = ::readdir(d))
    if (!dot_or_dotdot(e->d_name)) f(ctx, e->d_name, e->d_type, (unsigned long long)e->d_ino);
  ::closedir(d);
#endif
}

bool LeafCheck::no_subdirs(int fd) {
#if BLAUDE_LINUX_CALLS
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_nlink != 2) return false;
  for (const Dev& d : devs_)
    if (d.dev == st.st_dev) return d.exact;
  bool exact = exact_link_count(fd);
  devs_.push_back({st.st_dev, exact});
  return exact;
#else
  (void)fd;
  return false;
#endif
}

}  // namespace blaude
