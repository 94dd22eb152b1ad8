// Force-included (-include) by scripts/portability-check.sh into every source file of the forced-
// fallbacks configuration: what remains of Linux after this is what macOS has too (POSIX + libc).
// First the system headers the tree uses are read, so their own declarations stay legal; then the
// Linux-only calls, flags and syscall numbers are poisoned (any later use is a compile error) and
// __linux__ is undefined, so `#ifdef __linux__` code drops out as it does on a Mac. Headers macOS
// lacks are stand-ins in shim/ that #error. A use that must stay (behind BLAUDE_LINUX_CALLS) is
// simply not compiled in this configuration.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <list>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<spdlog/spdlog.h>)
#include <spdlog/spdlog.h>  // its formatters' clone() and std::list's splice() are theirs
#endif
#if __has_include(<uv.h>)
#include <uv.h>
#endif

#undef __linux__
#undef __linux
#undef linux
#undef __gnu_linux__

// Calls macOS does not have (or has with another meaning).
#pragma GCC poison syscall splice vmsplice prctl memfd_create pipe2 close_range dup3 accept4
#pragma GCC poison epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait signalfd eventfd
#pragma GCC poison inotify_init inotify_init1 inotify_add_watch ptsname_r renameat2 openat2
#pragma GCC poison getdents64 setns unshare clone3 pidfd_open pidfd_send_signal
#pragma GCC poison umount2 open_tree move_mount mount_setattr fsopen fsmount
#pragma GCC poison setresuid setresgid getresuid getresgid execvpe get_current_dir_name
#pragma GCC poison secure_getenv strchrnul program_invocation_name posix_fadvise fallocate
#pragma GCC poison sendfile copy_file_range sched_getaffinity pthread_setname_np
// Flags and constants: macros, so undefined first (as if the headers had never defined them).
#undef O_PATH
#undef O_TMPFILE
#undef O_NOATIME
#undef O_DIRECT
#undef SOCK_CLOEXEC
#undef SOCK_NONBLOCK
#undef MSG_NOSIGNAL
#pragma GCC poison O_PATH O_TMPFILE O_NOATIME O_DIRECT SOCK_CLOEXEC SOCK_NONBLOCK MSG_NOSIGNAL
#undef MSG_CMSG_CLOEXEC
#undef SO_PEERCRED
#undef SCM_CREDENTIALS
#undef SPLICE_F_MOVE
#undef SPLICE_F_NONBLOCK
#pragma GCC poison MSG_CMSG_CLOEXEC SO_PEERCRED SCM_CREDENTIALS SPLICE_F_MOVE SPLICE_F_NONBLOCK
#undef SPLICE_F_MORE
#undef F_SETPIPE_SZ
#undef F_GETPIPE_SZ
#undef CLONE_NEWPID
#undef CLONE_NEWUSER
#undef CLONE_NEWNS
#pragma GCC poison SPLICE_F_MORE F_SETPIPE_SZ F_GETPIPE_SZ CLONE_NEWPID CLONE_NEWUSER CLONE_NEWNS
#undef CLONE_PIDFD
#undef AT_EMPTY_PATH
#undef AT_RECURSIVE
#undef RENAME_NOREPLACE
#undef RENAME_EXCHANGE
#pragma GCC poison CLONE_PIDFD AT_EMPTY_PATH AT_RECURSIVE RENAME_NOREPLACE RENAME_EXCHANGE
#undef MFD_CLOEXEC
#undef PR_SET_PDEATHSIG
#undef PR_SET_NO_NEW_PRIVS
#undef PR_SET_CHILD_SUBREAPER
#pragma GCC poison MFD_CLOEXEC PR_SET_PDEATHSIG PR_SET_NO_NEW_PRIVS PR_SET_CHILD_SUBREAPER
#undef RESOLVE_BENEATH
#undef RESOLVE_NO_SYMLINKS
#undef RESOLVE_NO_MAGICLINKS
#undef MS_BIND
#undef MS_REC
#undef MS_PRIVATE
#undef MS_SLAVE
#undef MS_MOVE
#pragma GCC poison MS_BIND MS_REC MS_PRIVATE MS_SLAVE MS_MOVE
#pragma GCC poison RESOLVE_BENEATH RESOLVE_NO_SYMLINKS RESOLVE_NO_MAGICLINKS
// Raw syscall numbers (glibc's SYS_ names): the Linux ABI.
#undef SYS_close_range
#undef SYS_getdents64
#undef SYS_openat2
#undef SYS_renameat2
#undef SYS_rt_sigaction
#pragma GCC poison SYS_close_range SYS_getdents64 SYS_openat2 SYS_renameat2 SYS_rt_sigaction
#undef SYS_landlock_create_ruleset
#undef SYS_landlock_add_rule
#undef SYS_landlock_restrict_self
#pragma GCC poison SYS_landlock_create_ruleset SYS_landlock_add_rule SYS_landlock_restrict_self
#undef SYS_pidfd_open
#undef SYS_clone3
#undef SYS_open_tree
#undef SYS_move_mount
#undef SYS_mount_setattr
#pragma GCC poison SYS_pidfd_open SYS_clone3 SYS_open_tree SYS_move_mount SYS_mount_setattr
#undef SYS_memfd_create
#undef SYS_pivot_root
#undef SYS_gettid
#undef SYS_tgkill
#pragma GCC poison SYS_memfd_create SYS_pivot_root SYS_gettid SYS_tgkill
