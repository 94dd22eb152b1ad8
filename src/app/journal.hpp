// The audit's baseline outside the process: before the child starts, blaude writes the start
// state of every Claude Code file it watches to a journal under $XDG_STATE_HOME/blaude/sessions
// (~/.local/state/blaude/sessions), a place no sandbox can write, and holds a lock on it for the
// session's life. The audit removes it when done. So:
//  - a journal whose lock nobody holds is a session that never finished (blaude SIGKILLed, the
//    machine stopped): the next start audits its files against it first, before its own
//    sandbox starts;
//  - a journal whose lock is held is a session running now: a session starting beside it takes
//    that journal's start state as its own baseline, never the files the other sandbox may be
//    writing, and writes it into its own journal in turn.
// Everything read back is blaude's own writing in a user-only dir; it is still read beneath a
// held dir, without links, bounded, and a journal that does not parse is ignored (and said).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/claude_files.hpp"
#include "audit/snapshot.hpp"
#include "audit/walk.hpp"
#include "common/unique_fd.hpp"

namespace blaude::app {

struct JournalFile {
  std::string path;
  audit::ClaudeFile kind = audit::ClaudeFile::Settings;
  std::optional<std::string> text;  // nullopt: there was no file
};

struct Journal {
  std::string name;                // the entry under the sessions dir: "<pid>-<stamp>"
  std::vector<std::string> roots;  // the dirs the files were held beneath (watch_claude's roots)
  std::vector<JournalFile> files;
  UniqueFd lock;                   // held: ours for the session, or an orphan's while we audit it
  // The repositories' snapshot at the start and the walk that took it (its roots, its home),
  // written once the child runs (write_journal_git); nullopt before that or without repositories.
  std::optional<audit::Snapshot> git;
  audit::WalkInput git_walk;
};

// The sessions dir under the state dir, else under $XDG_RUNTIME_DIR, made 0700 where missing; ""
// (and `why`, the state dir's reason) when there is none blaude can trust: not absolute, under a
// dir the sandbox can write (`writable`), not the user's, or writable by others.
std::string journal_root(const std::string& home, const std::string& xdg_state_home,
                         const std::string& xdg_runtime_dir, const std::vector<std::string>& writable,
                         std::string* why);

struct Journals {
  std::vector<Journal> live;      // their sessions run now
  std::vector<Journal> orphaned;  // locked by us now: audit them, then remove_journal()
  std::vector<std::string> bad;   // entries that are not journals blaude can read (said, left)
};
Journals read_journals(const std::string& root);

// Writes `j` (its name set here) atomically: a temp dir, the lock taken, the files, renamed into
// place. false (and `why`) when it could not be written; nothing is left behind then.
bool write_journal(const std::string& root, Journal& j, std::string* why);

// Adds the repositories' snapshot to the journal `j` wrote (an entry "git", written whole or
// not at all). false (and `why`) when it could not be written.
bool write_journal_git(const std::string& root, const Journal& j, const audit::WalkInput& walk,
                       const audit::Snapshot& before, std::string* why);

// The snapshot's text in the journal, and back (pure; false for anything this did not write).
std::string git_journal_text(const audit::WalkInput& walk, const audit::Snapshot& s);
bool parse_git_journal(std::string_view text, audit::WalkInput& walk, audit::Snapshot& s);

// Removes a journal whose lock `j` holds.
void remove_journal(const std::string& root, Journal& j);

}  // namespace blaude::app
