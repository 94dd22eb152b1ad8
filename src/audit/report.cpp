#include "audit/report.hpp"

#include <cstdio>

#include "common/shown.hpp"

namespace blaude::audit {

std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// Every string below that holds a path, a key, a value or an error naming a path went through
// shown(): the sandbox chose the names and the contents, and a newline or an escape sequence in
// one must not make a line of its own or rewrite the terminal.
void finding(std::string& out, const Finding& f, const Applied& a) {
  out += "  " + shown(f.path) + "\n";
  const auto& lines = !a.removed.empty() ? a.removed : f.details;
  for (const auto& d : lines) out += "    found: " + shown(d) + "\n";
  if (f.act == Act::None) {
    out += "    left as it is: " + shown(f.why_report_only) +
           (f.claude ? "; check it before you run claude there\n" : "; check it before you run git there\n");
    return;
  }
  if (a.aside.empty()) {
    out += "    NOT made inert: " + shown(a.error) +
           (f.claude ? "; do not run claude before checking it\n"
                     : "; do not run git in " + shown(f.repo) + " before checking it\n");
    return;
  }
  out += "    done: moved to " + shown(a.aside);
  if (a.rewritten) out += ", and wrote " + shown(f.path) + " again " + (f.claude ? "with " + a.how : "without what is listed");
  else if (f.claude && f.act == Act::Rewrite && a.error.empty())
    out += *f.claude == ClaudeFile::Script ? " (nothing written in its place: there was none at the start)"
           : f.claude_before ? " (nothing written in its place: it was not valid JSON at the start either)"
                             : " (nothing written in its place: there was none at the start)";
  out += "\n";
  if (!a.error.empty()) out += "    but: " + shown(a.error) + "\n";
  // One line whatever the names hold: $'...' (bash, zsh, ksh) where a name is not plain text.
  out += "    undo: mv -f " + shell_word_shown(a.aside) + " " + shell_word_shown(f.path) + "\n";
}

void incomplete(std::string& out, const char* when, const Snapshot& s) {
  out += std::string("blaude: the audit's walk ") + when + " did not cover everything (" +
         std::to_string(s.dirs) + " dirs in " + seconds(s.seconds) + "); not checked:\n";
  for (const auto& p : s.not_reached) out += "  " + shown(p) + "\n";
  if (std::string(when) == "before the session") {
    out += "  what is new there is left as it is (it may be yours) and listed above\n";
  } else if (s.swept) {
    out += "  below these, every repository the start did not have was moved aside (listed above)\n";
  } else {
    out += "  and the pass that moves aside new repositories there ran out of time too: before running git\n"
           "  there, look for new repositories: find DIR -name .git\n";
  }
}

}  // namespace

std::string report_text(const std::vector<Finding>& findings, const std::vector<Applied>& applied,
                        const Snapshot& before, const Snapshot& after) {
  std::string out;
  size_t git = 0, claude = 0;
  for (const auto& f : findings) ++(f.claude ? claude : git);
  if (git) {
    out += "blaude: the session left " + std::to_string(git) + (git == 1 ? " thing" : " things") +
           " in git repositories that git would run or follow on this machine:\n";
    for (size_t i = 0; i < findings.size(); ++i)
      if (!findings[i].claude) finding(out, findings[i], i < applied.size() ? applied[i] : Applied{});
  }
  if (claude) {
    out += "blaude: the session changed what Claude Code runs on this machine in " + std::to_string(claude) +
           (claude == 1 ? " file" : " files") + " (claude started outside blaude would run it on its own):\n";
    for (size_t i = 0; i < findings.size(); ++i)
      if (findings[i].claude) finding(out, findings[i], i < applied.size() ? applied[i] : Applied{});
  }
  if (!before.complete) incomplete(out, "before the session", before);
  if (!after.complete) incomplete(out, "after the session", after);
  return out;
}

}  // namespace blaude::audit
