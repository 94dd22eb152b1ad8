#include "common/data_fd.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/platform.hpp"
#if BLAUDE_LINUX_CALLS
#include <sys/mman.h>
#endif

#include <cerrno>

#include "common/file_io.hpp"

namespace blaude {

namespace {

UniqueFd open_anonymous(const char* name) {
#if BLAUDE_LINUX_CALLS
  return UniqueFd(::memfd_create(name, MFD_CLOEXEC));
#else
  const char* tmp = ::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp == '/' ? tmp : "/tmp") + "/" + name + ".XXXXXX";
  UniqueFd fd(::mkstemp(tmpl.data()));
  if (fd) {
    ::unlink(tmpl.c_str());
    ::fcntl(fd.get(), F_SETFD, FD_CLOEXEC);
  }
  return fd;
#endif
}

}  // namespace

UniqueFd data_fd(const char* name, std::string_view content) {
  UniqueFd fd = open_anonymous(name);
  if (!fd) return fd;
  if (!write_all(fd.get(), content) || ::lseek(fd.get(), 0, SEEK_SET) != 0) return UniqueFd();
  return fd;
}

}  // namespace blaude
