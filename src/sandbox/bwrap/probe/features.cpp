#include "sandbox/bwrap/probe/features.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/file_io.hpp"
#include "common/unique_fd.hpp"

namespace blaude::sandbox::bwrap {

std::string bwrap_identity(const std::string& bwrap) {
  struct stat st;
  if (::stat(bwrap.c_str(), &st) != 0) return {};
  char buf[256];
  std::snprintf(buf, sizeof buf, " dev=%llu ino=%llu size=%lld mtime=%lld.%09ld ctime=%lld.%09ld",
                (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
                st.st_ctim.tv_nsec);
  return bwrap + buf;
}

int run_bwrap_quietly(const std::string& bwrap, const std::vector<std::string>& args, int timeout_ms) {
  std::vector<std::string> argv{bwrap};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions o;
  o.timeout_ms = timeout_ms;
  o.env = std::vector<std::string>{};
  o.capture = false;
  return run_capture(argv, o).status;
}

RunResult probe_userns(const std::string& bwrap) {
  RunOptions o;
  o.timeout_ms = 10000;
  o.env = std::vector<std::string>{};
  // The namespaces of a default session (the host's network).
  return run_capture({bwrap, "--unshare-all", "--share-net", "--die-with-parent", "--ro-bind", "/", "/", "--", "true"}, o);
}

std::string own_cache_dir(const std::string& home) { return home.empty() ? std::string() : home + "/.cache/blaude"; }

bool cache_dir_ok(const std::string& dir, uid_t uid) {
  struct stat st;
  return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid;
}

// Read in chunks and searched in place: the whole binary read into a string (a growing one) was
// ~45 page faults of copying per start on a small repository (measured with a page-fault profile).
bool file_mentions(const std::string& file, std::string_view what) {
  if (what.empty()) return true;
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 16 * 1024 * 1024) return true;
  char buf[16 * 1024];
  size_t kept = 0;  // the last what.size() - 1 bytes of the chunk before: a match may straddle two
  for (;;) {
    ssize_t n = ::read(fd.get(), buf + kept, sizeof buf - kept);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return true;
    if (n == 0) return false;
    std::string_view chunk(buf, kept + size_t(n));
    if (chunk.find(what) != std::string_view::npos) return true;
    kept = std::min(what.size() - 1, chunk.size());
    std::memmove(buf, buf + chunk.size() - kept, kept);
  }
}

namespace {

// The options that fail on a bwrap without overlays (and, with fd, without fd binds).
std::vector<std::string> overlay_probe_args(bool fd) {
  std::vector<std::string> a;
  if (fd) a = {"--ro-bind-fd", "0", "/"};
  a.insert(a.end(), {"--overlay-src", "/", "--tmp-overlay", "/", "--version"});
  return a;
}

// r with the cache entry for its answers as preparations (none when there is no cache file).
BwrapFeatures with_cache_entry(BwrapFeatures r, const std::string& home, const std::string& dir,
                               const std::string& file, const std::string& id) {
  if (file.empty()) return r;
  // ~/.cache, then ~/.cache/blaude (0700), then the entry; none of it is needed to launch.
  for (const std::string& d : {home + "/.cache", dir})
    r.cache_writes.push_back(HostPrep{HostPrep::Kind::MakeDir, d, 0700, "", false, "bwrap feature cache"});
  r.cache_writes.push_back(HostPrep{HostPrep::Kind::ReplaceFile, file, 0600,
                                    id + "\noverlay=" + (r.overlay ? "1" : "0") + "\nfd_binds=" + (r.fd_binds ? "1" : "0") + "\n",
                                    false, "bwrap feature cache (which options this bwrap accepts)"});
  return r;
}

}  // namespace

BwrapFeatures bwrap_features(const std::string& bwrap, const std::string& home, uid_t uid) {
  BwrapFeatures r;
  const std::string id = bwrap_identity(bwrap);
  if (id.empty()) {
    r.probe_failed = true;
    return r;
  }
  const std::string dir = own_cache_dir(home);
  const std::string file = dir.empty() ? "" : dir + "/bwrap-features-" + std::to_string(uid);
  if (!file.empty() && cache_dir_ok(dir, uid)) {
    std::string c = read_small_file(file, 1024, Follow::No).value_or("");
    // An entry without the fd_binds line was written before it was asked: stale.
    if (c.rfind(id + "\n", 0) == 0 && c.find("\nfd_binds=") != std::string::npos) {
      r.fd_binds = c.find("\nfd_binds=1\n") != std::string::npos;
      // Trusting the rest wrongly fails closed: bwrap refuses an overlay option it lacks, and
      // without fd binds the launch refuses held binds. "No overlays" weakens the layout, so it
      // is asked again: the sandbox may have written it (through -m ~/.cache:rw, say) if a
      // guard ever failed.
      if (c.find("\noverlay=1\n") != std::string::npos) {
        r.overlay = true;
        return r;
      }
      // A bwrap that has overlays names the option in its usage text and parser: a binary
      // without the string cannot have them (~50 us to read, where asking costs an exec,
      // ~1.5 ms). Only a binary that mentions it is asked.
      if (!file_mentions(bwrap, "--overlay-src") || run_bwrap_quietly(bwrap, overlay_probe_args(r.fd_binds)) != 0) return r;
      r = BwrapFeatures{};  // the entry lied (or bwrap gained overlays in place): asked afresh
    }
  }
  // bwrap parses every option before acting on --version, so an unknown option fails here
  // without creating a namespace (the fd is only parsed, never used). A bwrap that cannot even
  // print its version is broken. Two runs on 0.5-0.8 (as before the fd bit), one on 0.9+.
  const std::vector<std::string> fd = {"--ro-bind-fd", "0", "/"};
  if (run_bwrap_quietly(bwrap, overlay_probe_args(true)) == 0) {
    r.overlay = true;
  } else if (run_bwrap_quietly(bwrap, {fd[0], fd[1], fd[2], "--version"}) != 0) {
    r.fd_binds = false;
    if (run_bwrap_quietly(bwrap, {"--version"}) != 0) {
      r.fd_binds = true;  // unknown: the launch says what is wrong with this bwrap
      r.probe_failed = true;
      return r;
    }
  }
  return with_cache_entry(r, home, dir, file, id);
}

#ifdef __linux__
bool inner_mounts_work(const std::string& bwrap) {
  struct stat st;
  if (bwrap.empty() || ::stat(bwrap.c_str(), &st) != 0 || (st.st_mode & (S_ISUID | S_ISGID))) return false;
  auto present = [](long r) { return r == 0 || errno != ENOSYS; };
  struct open_how how = {};
  return present(::syscall(SYS_openat2, -1, "", &how, sizeof how)) &&
         present(::syscall(SYS_open_tree, -1, "", 0)) &&
         present(::syscall(SYS_move_mount, -1, "", -1, "", 0)) &&
         present(::syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0)) && present(::syscall(SYS_fsopen, nullptr, 0));
}
#else
bool inner_mounts_work(const std::string&) { return false; }
#endif

}  // namespace blaude::sandbox::bwrap
