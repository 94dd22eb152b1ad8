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
constexpr size_t kMaxGitJournal = size_t(256) << 20;
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
    if (ok) {
      BeneathEntry g = read_beneath(d.get(), "git", kMaxGitJournal);
      if (g.kind == BeneathEntry::File) {
        audit::Snapshot snap;
        ok = parse_git_journal(g.text, j.git_walk, snap);
        if (ok) j.git = std::move(snap);
      } else if (g.kind != BeneathEntry::Missing) {
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

namespace {

constexpr const char* kGitMagic = "blaude-git-journal 1";

// A field of a line: "-" for empty, else hex (any bytes, no separator inside).
std::string field(const std::string& s) { return s.empty() ? "-" : hex(s); }
std::optional<std::string> unfield(const std::string& s) { return s == "-" ? std::optional<std::string>("") : unhex(s); }

}  // namespace

std::string git_journal_text(const audit::WalkInput& walk, const audit::Snapshot& s) {
  std::string out = std::string(kGitMagic) + "\n";
  for (const auto& r : walk.roots) out += "root " + field(r) + "\n";
  out += "home " + field(walk.home) + "\n";
  out += std::string("complete ") + (s.complete ? "1" : "0") + "\n";
  for (const auto& r : s.repos) out += "repo " + field(r) + "\n";
  for (const auto& d : s.own_hook_dirs) out += "own " + field(d) + "\n";
  for (const auto& d : s.configured_hook_dirs) out += "configured " + field(d) + "\n";
  for (const auto& u : s.unchecked) out += "unchecked " + field(u) + "\n";
  for (const auto& [p, id] : s.claude_names) out += "claude " + field(p) + " " + field(id) + "\n";
  for (const auto& [p, r] : s.files)
    out += "file " + std::to_string(int(r.role)) + " " + std::to_string(int(r.kind)) + " " + (r.too_big ? "1" : "0") + " " +
           std::to_string(r.mode) + " " + field(p) + " " + field(r.content) + " " + field(r.digest) + " " +
           field(r.link) + " " + field(r.target) + " " + field(r.repo) + " " + field(r.reader) + "\n";
  // The last line says how long the rest is: a journal cut at a line's end is not whole.
  return out + "end " + std::to_string(out.size()) + "\n";
}

bool parse_git_journal(std::string_view text, audit::WalkInput& walk, audit::Snapshot& s) {
  walk = audit::WalkInput{};
  s = audit::Snapshot{};
  size_t at = 0;
  auto next_line = [&](std::string& line) {
    if (at >= text.size()) return false;
    size_t e = text.find('\n', at);
    if (e == std::string_view::npos) return false;  // every line ends with one
    line.assign(text.substr(at, e - at));
    at = e + 1;
    return true;
  };
  std::string line;
  if (!next_line(line) || line != kGitMagic) return false;
  bool have_complete = false, ended = false;
  while (next_line(line)) {
    if (ended) return false;
    if (line.rfind("end ", 0) == 0) {
      const size_t body = at - line.size() - 1;
      if (line != "end " + std::to_string(body)) return false;
      ended = true;
      continue;
    }
    std::vector<std::string> f;
    size_t i = 0;
    while (i <= line.size()) {
      size_t e = line.find(' ', i);
      if (e == std::string::npos) e = line.size();
      f.push_back(line.substr(i, e - i));
      i = e + 1;
    }
    auto abs = [](const std::optional<std::string>& p) { return p && !p->empty() && p->front() == '/'; };
    const std::string& tag = f[0];
    if (f.size() == 2 && tag != "complete") {
      auto v = unfield(f[1]);
      if (!v) return false;
      if (tag == "root" && abs(v)) walk.roots.push_back(*v);
      else if (tag == "home") walk.home = *v;
      else if (tag == "repo" && abs(v)) s.repos.push_back(*v);
      else if (tag == "own" && abs(v)) s.own_hook_dirs.insert(*v);
      else if (tag == "configured" && abs(v)) s.configured_hook_dirs.insert(*v);
      else if (tag == "unchecked" && abs(v)) s.unchecked.insert(*v);
      else return false;
    } else if (tag == "complete" && f.size() == 2 && (f[1] == "0" || f[1] == "1")) {
      s.complete = f[1] == "1";
      have_complete = true;
    } else if (tag == "claude" && f.size() == 3) {
      auto p = unfield(f[1]), id = unfield(f[2]);
      if (!abs(p) || !id) return false;
      s.claude_names[*p] = *id;
    } else if (tag == "file" && f.size() == 12) {
      audit::FileRecord r;
      auto num = [](const std::string& t, unsigned long max, unsigned long& out) {
        if (t.empty() || t.size() > 7 || t.find_first_not_of("0123456789") != std::string::npos) return false;
        out = std::stoul(t);
        return out <= max;
      };
      unsigned long role, kind, big, mode;
      if (!num(f[1], 3, role) || !num(f[2], 3, kind) || !num(f[3], 1, big) || !num(f[4], 07777, mode)) return false;
      auto p = unfield(f[5]), content = unfield(f[6]), digest = unfield(f[7]), link = unfield(f[8]),
           target = unfield(f[9]), repo = unfield(f[10]), reader = unfield(f[11]);
      if (!abs(p) || !content || !digest || !link || !target || !repo || !reader) return false;
      r.role = audit::Role(role);
      r.kind = audit::FileKind(kind);
      r.too_big = big == 1;
      r.mode = unsigned(mode);
      r.content = std::move(*content);
      r.digest = std::move(*digest);
      r.link = std::move(*link);
      r.target = std::move(*target);
      r.repo = std::move(*repo);
      r.reader = std::move(*reader);
      s.files.emplace(*p, std::move(r));
    } else {
      return false;
    }
  }
  return ended && at == text.size() && have_complete && !walk.roots.empty();
}

bool write_journal_git(const std::string& root, const Journal& j, const audit::WalkInput& walk,
                       const audit::Snapshot& before, std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  if (j.name.empty()) return fail("no journal");
  UniqueFd r = open_dir_no_symlinks(root);
  UniqueFd d = r ? open_sub(r.get(), j.name) : UniqueFd();
  if (!d) return fail("cannot open the journal " + root + "/" + j.name + ": " + errno_text());
  const std::string text = git_journal_text(walk, before);
  if (text.size() > kMaxGitJournal) return fail("the repositories' snapshot is larger than the journal takes");
  // Whole or not at all: written under a temporary name, then renamed.
  UniqueFd f(::openat(d.get(), ".git.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!f || !write_all(f.get(), text) || ::renameat(d.get(), ".git.tmp", d.get(), "git") != 0)
    return fail("cannot write " + root + "/" + j.name + "/git: " + errno_text());
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
