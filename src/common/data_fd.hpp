// A readable descriptor holding some bytes, from offset 0, backed by no named file: how blaude
// hands bwrap its options and data, and a clipboard helper its payload.
#pragma once
#include <string>
#include <string_view>

#include "common/unique_fd.hpp"

namespace blaude {

// Close-on-exec. A memfd on Linux; elsewhere (or with BLAUDE_POSIX_FALLBACKS) an unlinked temp
// file under $TMPDIR or /tmp. An invalid UniqueFd (errno set) when neither can be made.
UniqueFd data_fd(const char* name, std::string_view content);

}  // namespace blaude
