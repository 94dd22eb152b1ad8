// libFuzzer: the process-state readers of pty/proc_state.hpp (text from /proc/PID/stat, which a
// process names itself in, and from ps). Never a crash; the letter is the byte after the last
// ") " of a stat line, or 0; ps's is an upper-case letter or 0.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "pty/proc_state.hpp"

using namespace blaude::pty;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  char s = state_from_proc_stat(text);
  size_t close = text.rfind(')');
  bool has = close != std::string_view::npos && close + 2 < text.size() && text[close + 1] == ' ';
  if (s != (has ? text[close + 2] : 0)) std::abort();
  char p = state_from_ps(text);
  if (p != 0 && (p < 'A' || p > 'Z')) std::abort();
  return 0;
}
