// What the build knew about its source: defined in the file packaging/revision.cmake generates
// at every build (linked into the blaude executable and tools/gen_docs only).
#pragma once

namespace blaude::build {

extern const char* const kRevision;      // "1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty", or "" (no git, no archive)
extern const char* const kRevisionDate;  // the commit's date, YYYY-MM-DD (or SOURCE_DATE_EPOCH's)

}  // namespace blaude::build
