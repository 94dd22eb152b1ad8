// The audit's report: what was found, what was done, how to undo it. Pure text; the app prints
// it on stderr after the terminal is restored and writes it to the log.
#pragma once
#include <string>
#include <vector>

#include "audit/apply.hpp"
#include "audit/diff.hpp"
#include "audit/snapshot.hpp"

namespace blaude::audit {

// "" when there is nothing to say (no finding, both walks complete).
std::string report_text(const std::vector<Finding>& findings, const std::vector<Applied>& applied,
                        const Snapshot& before, const Snapshot& after);

// Single-quoted for sh: the undo lines are meant to be pasted.
std::string sh_quote(const std::string& s);

}  // namespace blaude::audit
