// Carries out the audit's findings on the host: moves files aside (never over an existing
// file) and writes sanitized configs, relative to a held directory descriptor so that a path
// swapped for a symlink meanwhile is not followed. The only part of the audit that changes files.
#pragma once
#include <string>
#include <vector>

#include "audit/diff.hpp"

namespace blaude::audit {

struct Applied {
  std::string aside;  // where the original went ("" if it did not move)
  bool rewritten = false;
  std::string error;  // "" on success
  std::vector<std::string> removed;  // Rewrite: what the written file leaves out
  std::string how;  // a Claude file's rewrite: what the written file holds (claude_clean_text)
};

// One result per finding, in order (Act::None gives an empty result). Nothing outside `roots`
// (the audited dirs) is ever moved or written: a finding whose dir resolves elsewhere (through a
// symlink) is refused with an error.
std::vector<Applied> apply_findings(const std::vector<Finding>& findings, const std::vector<std::string>& roots);

}  // namespace blaude::audit
