// The trust ledger (~/.config/blaude/trusted) as values, and the trust decision. Pure.
// One entry per scope (a repository's git common dir, so worktrees share trust, or the policy
// file's path outside git), holding the content hash, the base-policy id it was trusted under
// and the normalised grants then (so a later change can be shown as a diff of grants).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/grant.hpp"

namespace blaude::sandbox::trust {

struct TrustEntry {
  std::string scope;   // "repo:/abs/common/.git" or "path:/abs/file"
  std::string sha256;  // hex of the policy file's bytes
  std::string base;    // base_policy_id() when trusted
  std::string file;    // for people reading the ledger
  Grants grants;       // normalised, as shown when trusted
};

struct Ledger {
  std::vector<TrustEntry> entries;
};

// Empty text is an empty ledger. A damaged ledger is an error (never silently "trust nothing
// and overwrite"): returns nullopt and sets `error`.
std::optional<Ledger> parse_ledger(std::string_view text, std::string& error);
std::string format_ledger(const Ledger& ledger);

enum class TrustState { Trusted, New, Changed, BaseChanged };

struct TrustCheck {
  TrustState state = TrustState::New;
  std::optional<TrustEntry> previous;  // the entry for this scope, if any
};

TrustCheck check_trust(const Ledger& ledger, std::string_view scope, std::string_view sha256,
                       std::string_view base);

// Adds or replaces the entry for entry.scope.
void record_trust(Ledger& ledger, TrustEntry entry);

// Everything the user sees before the question, and the question itself: the file's own text
// (quoted, see quote_policy_text), the grants it makes as written, and, when symlinks on this
// host send a grant elsewhere, the resolved paths that will really apply.
// `seed_workspace`: the layout in effect (workspace-path seed: the project at /workspaces/<dir>
// only), said in one line.
std::string trust_prompt(const std::string& file, const TrustCheck& check, const Grants& grants,
                         const std::vector<std::string>& notes = {}, std::string_view text = {},
                         const Grants& resolved = {}, bool seed_workspace = false);

// The policy file's text as the prompt shows it: every line prefixed with "  | ", anything a
// terminal could act on (control characters, escape sequences, C1, invalid UTF-8) shown as
// \xNN instead, at most max_lines lines (then how many were left out). Pure.
std::string quote_policy_text(std::string_view text, size_t max_lines = 60);

// "y" / "yes" in any case, surrounding blanks ignored. Everything else, including "", is no.
bool is_yes(std::string_view reply);

}  // namespace blaude::sandbox::trust
