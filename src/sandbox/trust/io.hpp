// The trust gate's contact with the host: hashing, reading a policy file exactly once, finding
// the repository a project belongs to, and the locked, atomically replaced ledger file.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "common/unique_fd.hpp"
#include "sandbox/trust/ledger.hpp"

namespace blaude::sandbox::trust {

// Lower-case hex SHA-256 (OpenSSL libcrypto EVP).
std::string sha256_hex(std::string_view bytes);

struct FileRead {
  bool exists = false;
  std::string content;
  std::string error;  // non-empty: unreadable, a symlink, not a regular file, too large
};

// Reads the whole file into memory once (no symlinks, regular files only, bounded size), so
// the bytes hashed are the bytes parsed: nothing can swap the file in between.
FileRead read_file_once(const std::string& path, size_t max_bytes = 256 * 1024);

// The git common dir of the repository containing `dir` (so linked worktrees share one), found
// by reading .git / gitdir / commondir files: no git is run, so no repository config (hooks,
// fsmonitor) can execute. "" when `dir` is not inside a repository.
std::string find_git_common_dir(const std::string& dir);

// "repo:<common dir>" inside a repository, else "path:<resolved file>".
std::string trust_scope(const std::string& project_root, const std::string& policy_file);

// Holds an exclusive flock on <config_dir>/trusted.lock for its lifetime.
class LedgerLock {
public:
  static std::optional<LedgerLock> acquire(const std::string& config_dir, std::string& error);

private:
  explicit LedgerLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// Loads <config_dir>/trusted. A ledger that is not ours or is writable by others is an error
// (someone could plant trust). Call with the lock held.
std::optional<Ledger> load_ledger(const std::string& config_dir, std::string& error);

// Writes a temp file (0600), fsyncs it, renames it over <config_dir>/trusted, fsyncs the dir.
// Creates config_dir (0700) if needed. Call with the lock held.
bool save_ledger(const std::string& config_dir, const Ledger& ledger, std::string& error);

}  // namespace blaude::sandbox::trust
