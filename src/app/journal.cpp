#include "app/journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include "audit/snapshot.hpp"
#include "common/file_io.hpp"
#include "common/paths.hpp"

namespace blaude::app {

namespace {

constexpr const char* kMagic = "blaude-journal 1";
constexpr size_t kMaxIndex = 1 << 20;

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

std::optional<std::string> unhex(const std::string& s) {
  if (s.size() % 2) return std::nullopt;
  auto v = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    int a = v(s[i]), b = v(s[i + 1]);
    if (a < 0 || b < 0) return std::nullopt;
    out += char(a * 16 + b);
  }
  return out;
}

size_t cap_of(audit::ClaudeFile k) { return k == audit::ClaudeFile::State ? audit::kMaxClaudeContent : size_t(16) << 20; }

// A dir under the held root, opened for reading entries (never through a link).
UniqueFd open_sub(int root, const std::string& name) {
  return UniqueFd(::openat(root, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// Empties and removes root/name (blaude's own files only: regular files, no subdirs).
void remove_dir(int root, const std::string& name) {
  UniqueFd d = open_sub(root, name);
  if (d) {
    if (DIR* dir = ::fdopendir(::dup(d.get()))) {
      std::vector<std::string> names;
      while (struct dirent* e = ::readdir(dir))
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.emplace_back(e->d_name);
      ::closedir(dir);
      for (const auto& n : names) ::unlinkat(d.get(), n.c_str(), 0);
    }
  }
  ::unlinkat(root, name.c_str(), AT_REMOVEDIR);
}

bool parse_index(const std::string& text, Journal& j, std::vector<std::pair<size_t, bool>>& data) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return false;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string tag;
    l >> tag;
    if (tag == "root") {
      std::string h;
      l >> h;
      auto r = unhex(h);
      if (!r || r->empty() || r->front() != '/') return false;
      j.roots.push_back(*r);
    } else if (tag == "file") {
      int kind = -1, has = -1;
      std::string h;
      l >> kind >> has >> h;
      auto p = unhex(h);
      if (kind < 0 || kind > 2 || (has != 0 && has != 1) || !p || p->empty() || p->front() != '/') return false;
      j.files.push_back({*p, audit::ClaudeFile(kind), std::nullopt});
      data.emplace_back(j.files.size() - 1, has == 1);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

namespace {

std::string journal_root_at(const std::string& base, const std::vector<std::string>& writable, std::string* why) {
  const std::string root = base + "/blaude/sessions";
  auto fail = [&](std::string w) {
    if (why) *why = std::move(w);
    return std::string();
  };
  if (root.front() != '/') return fail(root + " is not an absolute path");
  for (const auto& w : writable)
    if (is_under(root, w)) return fail(root + " is inside " + w + ", which the sandbox can write");
  if (!make_dirs(root, 0700)) return fail("cannot make " + root + ": " + errno_text());
  // And as it resolves (a link on the way into a writable dir).
  const std::string real = canonical_path(root);
  for (const auto& w : writable) {
    const std::string wr = canonical_path(w);
    if (real.empty() || (!wr.empty() && is_under(real, wr)))
      return fail(root + " is inside " + w + ", which the sandbox can write");
  }
  for (const std::string& d : {dirname_of(root), root}) {
    UniqueFd fd = open_dir_no_symlinks(d);
    struct stat st;
    if (!fd || ::fstat(fd.get(), &st) != 0) return fail("cannot open " + d + " without following a link");
    if (st.st_uid != ::geteuid() || (st.st_mode & 022))
      return fail(d + " is not yours alone (owner or mode); blaude keeps its journal there");
  }
  return root;
}

}  // namespace

std::string journal_root(const std::string& home, const std::string& xdg_state_home,
                         const std::string& xdg_runtime_dir, const std::vector<std::string>& writable,
                         std::string* why) {
  const std::string state = !xdg_state_home.empty() && xdg_state_home.front() == '/' ? normalize(xdg_state_home)
                                                                                     : home + "/.local/state";
  std::string r = journal_root_at(state, writable, why);
  // The runtime dir (a tmpfs of the user's, gone at reboot) where the state dir cannot be used:
  // a session killed is still audited by the next start before the machine restarts.
  if (r.empty() && !xdg_runtime_dir.empty() && xdg_runtime_dir.front() == '/')
    r = journal_root_at(normalize(xdg_runtime_dir), writable, nullptr);
  return r;
}

Journals read_journals(const std::string& root) {
  Journals out;
  UniqueFd r = open_dir_no_symlinks(root);
  if (!r) return out;
  UniqueFd list = open_sub(r.get(), ".");
  DIR* dir = list ? ::fdopendir(::dup(list.get())) : nullptr;
  if (!dir) return out;
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.emplace_back(e->d_name);
  ::closedir(dir);
  std::sort(names.begin(), names.end());  // "<stamp>-<pid>": the oldest first
  for (const auto& name : names) {
    UniqueFd d = open_sub(r.get(), name);
    if (!d) {
      out.bad.push_back(name);
      continue;
    }
    UniqueFd lock(::openat(d.get(), "lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat st;
    if (!lock || ::fstat(lock.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      out.bad.push_back(name);
      continue;
    }
    const bool ours = ::flock(lock.get(), LOCK_EX | LOCK_NB) == 0;
    if (name.rfind(".tmp-", 0) == 0) {
      // A journal killed while it was being written: nothing of it was ever in force.
      if (ours) remove_dir(r.get(), name);
      continue;
    }
    Journal j;
    j.name = name;
    BeneathEntry idx = read_beneath(d.get(), "index", kMaxIndex);
    if (idx.kind == BeneathEntry::Missing && ours) continue;  // another start audited and removed it
    std::vector<std::pair<size_t, bool>> data;
    bool ok = idx.kind == BeneathEntry::File && parse_index(idx.text, j, data);
    for (const auto& [i, has] : data) {
      if (!ok || !has) continue;
      BeneathEntry e = read_beneath(d.get(), std::to_string(i), cap_of(j.files[i].kind));
      if (e.kind == BeneathEntry::File) {
        j.files[i].text = std::move(e.text);
      } else {
        ok = false;
      }
    }
    if (!ok) {
      out.bad.push_back(name);
      continue;
    }
    if (ours) {
      j.lock = std::move(lock);
      out.orphaned.push_back(std::move(j));
    } else {
      out.live.push_back(std::move(j));
    }
  }
  return out;
}

bool write_journal(const std::string& root, Journal& j, std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w + ": " + errno_text();
    return false;
  };
  UniqueFd r = open_dir_no_symlinks(root);
  if (!r) return fail("cannot open " + root);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  j.name = std::to_string(ms) + "-" + std::to_string(::getpid());
  const std::string tmp = ".tmp-" + j.name;
  if (::mkdirat(r.get(), tmp.c_str(), 0700) != 0) return fail("cannot make " + root + "/" + tmp);
  UniqueFd d = open_sub(r.get(), tmp);
  bool ok = bool(d);
  if (ok) {
    j.lock = UniqueFd(::openat(d.get(), "lock", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    ok = j.lock && ::flock(j.lock.get(), LOCK_EX | LOCK_NB) == 0;
  }
  auto put = [&](const std::string& name, const std::string& text) {
    UniqueFd f(::openat(d.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    return f && write_all(f.get(), text);
  };
  std::string index = std::string(kMagic) + "\n";
  for (const auto& root_dir : j.roots) index += "root " + hex(root_dir) + "\n";
  for (size_t i = 0; ok && i < j.files.size(); ++i) {
    const auto& f = j.files[i];
    index += "file " + std::to_string(int(f.kind)) + " " + (f.text ? "1 " : "0 ") + hex(f.path) + "\n";
    if (f.text) ok = put(std::to_string(i), *f.text);
  }
  ok = ok && put("index", index) && ::renameat(r.get(), tmp.c_str(), r.get(), j.name.c_str()) == 0;
  if (!ok) {
    const int e = errno;
    remove_dir(r.get(), tmp);
    j.lock.reset();
    errno = e;
    j.name.clear();
    return fail("cannot write the journal in " + root);
  }
  return true;
}

void remove_journal(const std::string& root, Journal& j) {
  if (j.name.empty()) return;
  UniqueFd r = open_dir_no_symlinks(root);
  if (r) remove_dir(r.get(), j.name);
  j.lock.reset();
  j.name.clear();
}

}  // namespace blaude::app
