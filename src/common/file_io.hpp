// The one copy of each small file operation blaude needs (reading a small file, writing all of
// a buffer, replacing a file atomically, creating a private directory chain).
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace blaude {

enum class Follow { Yes, No };

// At most `cap` bytes of a regular file; nullopt when it cannot be opened or read, or is not a
// regular file. Follow::No refuses a symlink at the last component (O_NOFOLLOW), for files a
// sandboxed process could have planted.
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

// strerror(errno), as one string.
std::string errno_text();

}  // namespace blaude
