// The one copy of each small file operation blaude needs (reading a small file, writing all of
// a buffer, replacing a file atomically, creating a private directory chain).
#pragma once
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_fd.hpp"

namespace blaude {

enum class Follow { Yes, No };

// At most `cap` bytes of a regular file; nullopt when it cannot be opened or read, or is not a
// regular file. Follow::No refuses a symlink at the last component (O_NOFOLLOW), for files a
// sandboxed process could have planted. Opened non-blocking: a FIFO planted under the name is
// refused at once instead of hanging blaude.
std::optional<std::string> read_small_file(const std::string& path, size_t cap = 64 * 1024,
                                           Follow follow = Follow::Yes);
// The first line of a small file without trailing blanks (/proc/sys/... values).
std::optional<std::string> read_first_line(const std::string& path);

// Writes every byte, retrying short writes and EINTR. false (errno set) on error.
bool write_all(int fd, std::string_view data);

// Replaces `path` with `content` so that a reader (or a crash) sees the old file or the new one,
// never half of either: a unique temp file in the same directory, fchmod(mode), write, fsync,
// rename over (which replaces a symlink planted at `path` instead of writing through it), then
// fsync of the directory. Returns "" on success, else what failed ("cannot write X: why").
std::string atomic_replace(const std::string& path, std::string_view content, mode_t mode);

// mkdir -p with `mode` for each directory it creates. false (errno set) when one cannot be made.
bool make_dirs(const std::string& path, mode_t mode);

// lstat/stat kinds, for the few yes/no questions the app layer asks of the host.
bool is_dir(const std::string& path);           // follows links
bool is_regular_file(const std::string& path);  // lstat: a symlink is not
bool path_exists(const std::string& path);      // lstat
// realpath(3), or "" when the path does not resolve.
std::string canonical_path(const std::string& path);

// A directory held open to resolve names beneath it later (O_PATH where there is one), reached
// from `abs` (absolute) without crossing a symlink anywhere: openat2 RESOLVE_NO_SYMLINKS where
// the kernel has it, else one component at a time with O_NOFOLLOW. Invalid (errno set, ELOOP
// for a symlink) otherwise.
UniqueFd open_dir_no_symlinks(const std::string& abs);

// What is at `rel` beneath the held dir `at`, read without following a symlink in any component
// and without leaving `at` (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS per component where the
// kernel has it, else openat with O_NOFOLLOW), opened non-blocking, regular files only, at most
// `cap` bytes. `rel` is relative, without "." or ".." components.
struct BeneathEntry {
  enum Kind {
    Missing,  // a component or the entry itself does not exist
    File,     // a regular file: `text` holds it
    TooBig,   // a regular file larger than `cap`: not read
    Symlink,  // a symlink, the entry's or a directory component's (`link` is its text)
    Other,    // not a regular file (a FIFO, a socket, a device, a dir), or a component not a dir
    Error,    // could not be opened or read for another reason (`error`)
  };
  Kind kind = Missing;
  std::string text, link, error;
  // Where it was found: the dir holding the entry that stopped the walk (or the file itself)
  // and that entry's name; `component` is true when it is a directory component of `rel`, not
  // the entry itself.
  std::shared_ptr<UniqueFd> dir;
  std::string name;
  bool component = false;
  size_t size = 0;  // File, TooBig: st_size
};
BeneathEntry read_beneath(int at, const std::string& rel, size_t cap);

// `rel` split at '/'; empty when a component is empty, "." or "..".
std::vector<std::string> relative_components(const std::string& rel);

// strerror(errno), as one string.
std::string errno_text();

}  // namespace blaude
