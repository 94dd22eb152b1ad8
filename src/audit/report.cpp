#include "audit/report.hpp"

#include <cstdio>

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

void finding(std::string& out, const Finding& f, const Applied& a) {
  out += "  " + f.path + "\n";
  const auto& lines = !a.removed.empty() ? a.removed : f.details;
  for (const auto& d : lines) out += "    found: " + d + "\n";
  if (f.act == Act::None) {
    out += "    left as it is: " + f.why_report_only + "; check it before you run git there\n";
    return;
  }
  if (a.aside.empty()) {
    out += "    NOT made inert: " + a.error +
           (f.claude ? "; do not run claude before checking it\n" : "; do not run git in " + f.repo + " before checking it\n");
    return;
  }
  out += "    done: moved to " + a.aside;
  if (a.rewritten) out += ", and wrote " + f.path + " again " + (f.claude ? "with " + a.how : "without what is listed");
  else if (f.claude && a.error.empty())
    out += *f.claude == ClaudeFile::Script ? " (nothing written in its place: there was none at the start)"
                                           : " (nothing written in its place: it was not valid JSON at the start either)";
  out += "\n";
  if (!a.error.empty()) out += "    but: " + a.error + "\n";
  out += "    undo: mv -f " + sh_quote(a.aside) + " " + sh_quote(f.path) + "\n";
}

void incomplete(std::string& out, const char* when, const Snapshot& s) {
  out += std::string("blaude: the audit's walk ") + when + " did not cover everything (" +
         std::to_string(s.dirs) + " dirs in " + seconds(s.seconds) + "); not checked:\n";
  for (const auto& p : s.not_reached) out += "  " + p + "\n";
  out += "  hint: before running git there, look for new repositories: find DIR -name .git\n";
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
