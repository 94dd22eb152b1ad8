#include "audit/diff.hpp"

#include <algorithm>
#include <map>

#include "common/git_config.hpp"
#include "audit/git_keys.hpp"
#include "audit/git_paths.hpp"
#include "common/paths.hpp"

namespace blaude::audit {

std::string describe_entry(const ConfigEntry& e) {
  std::string out = e.key;
  if (!e.value) return out;
  // Raw: the report shows every line through shown() (common/shown.hpp), which escapes what a
  // terminal would act on; escaping here as well would show each backslash twice.
  const std::string& v = *e.value;
  return out + " = \"" + (v.size() > 200 ? v.substr(0, 200) + "..." : v) + "\"";
}

std::string sanitize_config(std::string_view before, std::string_view after, std::vector<std::string>* removed) {
  // How many times each dangerous (key, value) was there before: that many stay.
  std::map<std::pair<std::string, std::string>, int> allowed;
  auto id = [](const ConfigEntry& e) { return std::make_pair(e.key, e.value ? "=" + *e.value : std::string()); };
  for (const auto& e : parse_git_config(before).entries)
    if (classify(e).risk != Risk::None) ++allowed[id(e)];
  std::vector<ConfigEntry> kept;
  for (const auto& e : parse_git_config(after).entries) {
    const KeyRisk r = classify(e);
    if (r.risk != Risk::None && allowed[id(e)]-- <= 0) {
      if (removed) removed->push_back(describe_entry(e) + " (" + std::string(r.why) + ")");
      continue;
    }
    kept.push_back(e);
  }
  return write_git_config(kept);
}

namespace {

// Fills f for a config file that is new or changed; false when nothing in it matters.
bool judge_config(const FileRecord& rec, const FileRecord* old, Finding& f) {
  if (rec.kind == FileKind::Other || rec.too_big) {
    f.details.push_back(rec.too_big ? "larger than the audit reads (1 MiB)" : "not a regular file");
    f.act = Act::MoveAside;
    return true;
  }
  f.before_text = old && !old->too_big && old->kind != FileKind::Other ? old->content : "";
  sanitize_config(f.before_text, rec.content, &f.details);
  const ParsedConfig parsed = parse_git_config(rec.content);
  if (parsed.error_line && (!old || parse_git_config(f.before_text).error_line == 0))
    f.details.push_back("git cannot read it past line " + std::to_string(parsed.error_line));
  if (f.details.empty()) return false;
  f.act = Act::Rewrite;
  return true;
}

bool judge_pointer(const FileRecord& rec, const AuditContext& ctx, Finding& f) {
  if (rec.target.empty() || is_under_any(rec.target, ctx.roots)) return false;  // audited there
  f.details.push_back("points git at " + rec.target + ", outside the directories the sandbox could write");
  f.act = Act::MoveAside;
  return true;
}

bool hook_reachable(const std::string& path, const Snapshot& before, const Snapshot& after) {
  const std::string dir = dirname_of(path);
  return after.own_hook_dirs.count(dir) || before.own_hook_dirs.count(dir) || before.configured_hook_dirs.count(dir);
}

}  // namespace

std::vector<Finding> compare(const Snapshot& before, const Snapshot& after, const AuditContext& ctx) {
  std::vector<Finding> out;
  for (const auto& [path, rec] : after.files) {
    auto it = before.files.find(path);
    const FileRecord* old = it == before.files.end() ? nullptr : &it->second;
    // A runner's tree the walk could not read whole is judged changed: a limit is no proof.
    if (old && *old == rec && !(rec.role == Role::Runner && rec.too_big)) continue;
    Finding f;
    f.path = path;
    f.repo = rec.repo;
    f.role = rec.role;
    f.aside = path + ".blaude-audit-" + ctx.stamp;
    bool matters = false;
    switch (rec.role) {
      case Role::Config: matters = judge_config(rec, old, f); break;
      case Role::Hook:
        if (!hook_reachable(path, before, after)) continue;
        f.details.push_back(old ? "changed hook" : "new hook");
        f.act = Act::MoveAside;
        matters = true;
        break;
      case Role::Pointer: matters = judge_pointer(rec, ctx, f); break;
      case Role::Runner:
        // Moved aside whole, never emptied or replaced: an empty rebase-merge/ is a rebase in
        // progress to git.
        f.details.push_back(std::string(!old ? "new" : "changed") +
                            (rec.kind == FileKind::Dir ? " dir" : rec.kind == FileKind::Symlink ? " symlink" : "") +
                            ", " + rec.reader);
        if (rec.too_big) f.details.push_back("larger than the audit reads whole");
        f.act = Act::MoveAside;
        matters = true;
        break;
    }
    if (!matters) continue;
    if (!old && !before.complete) {
      // Not seen at the start because that walk stopped early: it may be the user's own.
      f.act = Act::None;
      f.why_report_only = "the snapshot before the session did not reach it, so it may be yours";
    }
    out.push_back(std::move(f));
  }
  // What is inside a runner's dir that is moved aside whole (.husky/ and the hooks in .husky/_)
  // goes with it: no finding of its own.
  std::vector<std::string> whole;
  for (const auto& f : out)
    if (f.role == Role::Runner && f.act == Act::MoveAside) whole.push_back(f.path);
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const Finding& f) {
                             return std::any_of(whole.begin(), whole.end(),
                                                [&](const std::string& w) { return f.path != w && is_under(f.path, w); });
                           }),
            out.end());
  // Claude Code's project names the start did not have, at any depth: claude started there
  // would run what they name. Moved aside whole (a dir with everything in it).
  for (const auto& [path, id] : after.claude_names) {
    auto was = before.claude_names.find(path);
    if (was != before.claude_names.end() && (was->second == id || was->second.empty())) continue;
    // `claude --worktree`'s dir: its worktrees only, which Claude Code reads no config from.
    if (id.size() > std::char_traits<char>::length(kClaudeWorktreesOnly) && id.ends_with(kClaudeWorktreesOnly)) continue;
    Finding f;
    f.path = path;
    f.repo = dirname_of(path);
    f.role = Role::Pointer;
    f.claude = ClaudeFile::Script;
    const bool other = was != before.claude_names.end();
    f.details.push_back(std::string(other ? "not the one there at the start" : "new") +
                        (path.substr(path.rfind('/') + 1) == ".claude"
                             ? ": claude started here would run the hooks, commands, skills and agents in it"
                             : ": claude started here would start the MCP servers it names"));
    f.act = Act::MoveAside;
    f.aside = path + ".blaude-audit-" + ctx.stamp;
    if (!before.complete) {
      f.act = Act::None;
      f.why_report_only = "the snapshot before the session did not reach it, so it may be yours";
    }
    out.push_back(std::move(f));
  }
  // An index that makes git enter a repository outside its work tree (or that blaude cannot
  // read whole): the index goes aside; git then starts from an empty one, and the undo line puts
  // the agent's back for the user who checked it.
  for (const auto& [path, why] : after.bad_indexes) {
    Finding f;
    f.path = path;
    f.repo = dirname_of(path);
    f.role = Role::Pointer;
    f.details.push_back("the index " + why + " (git status enters it and runs what its config names)");
    f.act = Act::MoveAside;
    f.aside = path + ".blaude-audit-" + ctx.stamp;
    out.push_back(std::move(f));
  }
  // What the walk after the session did not get to read: a repository there that the start did
  // not have (neither read nor seen by name) is moved aside whole, not only mentioned.
  for (const auto& path : after.unchecked) {
    const bool known = before.files.count(path) || before.unchecked.count(path) ||
                       std::find(before.repos.begin(), before.repos.end(), path) != before.repos.end();
    if (known || after.files.count(path)) continue;
    Finding f;
    f.path = path;
    f.repo = path;
    f.role = Role::Pointer;
    f.details.push_back("a repository the audit did not get to check (its walk stopped at a limit)");
    f.act = Act::MoveAside;
    f.aside = path + ".blaude-audit-" + ctx.stamp;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace blaude::audit
