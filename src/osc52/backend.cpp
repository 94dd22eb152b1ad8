#include "osc52/backend.hpp"

#include "common/path_search.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace blaude::osc52 {

const char* tool_name(Tool t) {
  switch (t) {
    case Tool::None: return "none";
    case Tool::WlCopy: return "wl-copy";
    case Tool::Xclip: return "xclip";
    case Tool::Xsel: return "xsel";
    case Tool::Pbcopy: return "pbcopy";
  }
  return "?";
}

Backend choose_backend(const HostFacts& h) {
  if (h.disabled) return {};
  if (!h.wayland_display.empty() && !h.wl_copy.empty()) return {Tool::WlCopy, h.wl_copy};
  if (!h.display.empty()) {
    if (!h.xclip.empty()) return {Tool::Xclip, h.xclip};
    if (!h.xsel.empty()) return {Tool::Xsel, h.xsel};
  }
  if (h.macos && !h.pbcopy.empty()) return {Tool::Pbcopy, h.pbcopy};
  return {};
}

std::vector<std::string> helper_argv(const Backend& b, Target t, const std::string& type) {
  if (!type.empty() && b.tool != Tool::WlCopy && b.tool != Tool::Xclip) return {};
  switch (b.tool) {
    case Tool::WlCopy: {
      if (t == Target::Secondary) return {};
      std::vector<std::string> argv{b.path};
      if (t == Target::Primary) argv.push_back("--primary");
      if (!type.empty()) argv.insert(argv.end(), {"--type", type});
      return argv;
    }
    case Tool::Xclip: {
      const char* sel = t == Target::Primary ? "primary"
                        : t == Target::Secondary ? "secondary" : "clipboard";
      if (!type.empty()) return {b.path, "-selection", sel, "-t", type, "-in"};
      return {b.path, "-selection", sel, "-in"};
    }
    case Tool::Xsel: {
      const char* sel = t == Target::Primary ? "--primary"
                        : t == Target::Secondary ? "--secondary" : "--clipboard";
      return {b.path, sel, "--input"};
    }
    case Tool::Pbcopy:
      return {b.path};
    case Tool::None:
      break;
  }
  return {};
}

std::string find_program(const std::string& name, const std::string& path_var) {
  // Relative PATH entries depend on the cwd: skipped.
  return find_executable(name, path_var, RelativeEntries::Skip).value_or("");
}

HostFacts probe_host(const HostEnv& host, bool no_clipboard) {
  auto env = [&](const char* k) { return host.get(k); };
  HostFacts h;
  h.disabled = no_clipboard || env("OSC52_NO_CLIPBOARD") == "1";
  if (h.disabled) return h;
#ifdef __APPLE__
  h.macos = true;
#endif
  h.wayland_display = env("WAYLAND_DISPLAY");
  h.display = env("DISPLAY");
  std::string path = env("PATH");
  if (!h.wayland_display.empty()) h.wl_copy = find_program("wl-copy", path);
  if (!h.display.empty()) {
    h.xclip = find_program("xclip", path);
    if (h.xclip.empty()) h.xsel = find_program("xsel", path);
  }
  if (h.macos) h.pbcopy = find_program("pbcopy", path);
  return h;
}

}  // namespace blaude::osc52
