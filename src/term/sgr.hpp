// SGR (CSI ... m) applied to the Sgr model, and written back for reapply().
#pragma once
#include <string>

#include "term/params.hpp"
#include "term/state.hpp"

namespace blaude::term {

void apply_sgr(Sgr& s, const Params& p);
// Appends one CSI ... m that sets exactly `s` from any rendition (it starts with 0).
void append_sgr(const Sgr& s, std::string& out);

}  // namespace blaude::term
