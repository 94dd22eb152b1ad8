#include "sandbox/bwrap_features.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "common/unique_fd.hpp"

namespace blaude::sandbox {

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

int run_bwrap_quietly(const std::string& bwrap, const std::vector<std::string>& args) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int fd : {0, 1, 2}) posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(bwrap.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, bwrap.c_str(), &fa, nullptr, argv.data(), envp);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {

// ~/.cache/blaude, created 0700; refused when it is a link or someone else's.
std::string cache_dir(const std::string& home, uid_t uid, bool create) {
  std::string cache = home + "/.cache", dir = cache + "/blaude";
  if (create) {
    ::mkdir(cache.c_str(), 0700);
    ::mkdir(dir.c_str(), 0700);
  }
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid) return {};
  if (create && (st.st_mode & 077)) ::chmod(dir.c_str(), 0700);
  return dir;
}

std::string read_cache(const std::string& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return {};
  char buf[1024];
  ssize_t n = ::read(fd.get(), buf, sizeof buf);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// Write to a unique temp name, then rename over: concurrent launches never see half a file.
void write_cache(const std::string& file, const std::string& text) {
  std::string tmp = file + "." + std::to_string(::getpid()) + ".tmp";
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return;
  bool ok = ::write(fd.get(), text.data(), text.size()) == ssize_t(text.size());
  fd.reset();
  if (!ok || ::rename(tmp.c_str(), file.c_str()) != 0) ::unlink(tmp.c_str());
}

}  // namespace

BwrapFeatures bwrap_features(const std::string& bwrap, const std::string& home, uid_t uid, bool persist) {
  BwrapFeatures r;
  const std::string id = bwrap_identity(bwrap);
  if (id.empty()) {
    r.probe_failed = true;
    return r;
  }
  std::string dir = home.empty() ? "" : cache_dir(home, uid, false);
  std::string file = dir.empty() ? "" : dir + "/bwrap-features-" + std::to_string(uid);
  if (!file.empty()) {
    std::string c = read_cache(file);
    if (c.rfind(id + "\n", 0) == 0) {
      r.overlay = c.find("\noverlay=1\n") != std::string::npos;
      return r;
    }
  }
  // bwrap parses every option before acting on --version, so an unknown option fails here
  // without creating a namespace. A bwrap that cannot even print its version is broken.
  int with = run_bwrap_quietly(bwrap, {"--overlay-src", "/", "--tmp-overlay", "/", "--version"});
  if (with == 0) {
    r.overlay = true;
  } else if (run_bwrap_quietly(bwrap, {"--version"}) != 0) {
    r.probe_failed = true;
    return r;
  }
  if (persist && !home.empty()) {
    dir = cache_dir(home, uid, true);
    if (!dir.empty())
      write_cache(dir + "/bwrap-features-" + std::to_string(uid), id + "\noverlay=" + (r.overlay ? "1" : "0") + "\n");
  }
  return r;
}

}  // namespace blaude::sandbox
