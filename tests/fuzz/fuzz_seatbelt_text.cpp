// libFuzzer: the Seatbelt backend's text readers and writers. parse_shebang (claude's #! line,
// read from the host) never crashes and names a program without blanks; darwin_dirs_from_temp
// accepts only .../folders/<a>/<b>/T; sbpl_string either refuses or quotes so that unescaping
// gives the input back and no control character reaches the profile.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sandbox/seatbelt/host.hpp"
#include "sandbox/seatbelt/profile.hpp"

namespace sb = blaude::sandbox::seatbelt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto s = sb::parse_shebang(text)) {
    if (s->program.empty() || s->program.find_first_of(" \t\r\n") != std::string::npos) std::abort();
    if (!s->via_env && s->program[0] != '/') std::abort();
  }
  if (auto d = sb::darwin_dirs_from_temp(std::string(text))) {
    if (!d->temp.ends_with("/T") || !d->temp.starts_with("/private/var/folders/")) std::abort();
    std::string base = d->temp.substr(0, d->temp.size() - 2);
    if (d->cache != base + "/C" || d->volatile_dir != base + "/X") std::abort();
  }
  try {
    std::string q = sb::sbpl_string(text);
    if (q.size() < 2 || q.front() != '"' || q.back() != '"') std::abort();
    std::string back;
    for (size_t i = 1; i + 1 < q.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(q[i]);
      if (c < 0x20 || c == 0x7f) std::abort();
      if (c == '"') std::abort();  // an unescaped quote would end the string early
      if (c == '\\') ++i;
      back += q[i];
    }
    if (back != text) std::abort();
  } catch (const sb::SeatbeltError&) {
  }
  return 0;
}
