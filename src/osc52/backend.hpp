// Which clipboard tool receives the copies. The choice is a pure function of the environment
// and of which tools exist; probe_host() is the thin shell that gathers those facts, once.
#pragma once
#include <string>
#include <vector>

#include "common/host_env.hpp"
#include "osc52/decode.hpp"

namespace blaude::osc52 {

enum class Tool { None, WlCopy, Xclip, Xsel, Pbcopy };
const char* tool_name(Tool t);

struct HostFacts {
  bool disabled = false;          // --no-clipboard or OSC52_NO_CLIPBOARD=1
  std::string wayland_display;    // $WAYLAND_DISPLAY
  std::string display;            // $DISPLAY
  bool macos = false;
  // Absolute paths of the tools found on PATH ("" when absent).
  std::string wl_copy, xclip, xsel, pbcopy;
};

struct Backend {
  Tool tool = Tool::None;
  std::string path;  // absolute path of the tool
};

// In order: WAYLAND_DISPLAY + wl-copy; DISPLAY + xclip, else xsel; pbcopy on macOS.
// Tool::None when interception must stay off.
Backend choose_backend(const HostFacts& h);

// The command that copies its stdin into `t`, or empty when the tool has no such selection
// (wl-copy has no SECONDARY). pbcopy puts every target on the general pasteboard. A `type`
// (image/png) only where the tool can say it (xclip -t, wl-copy --type).
std::vector<std::string> helper_argv(const Backend& b, Target t, const std::string& type = "");

// Reads the environment and searches PATH. `no_clipboard` is the --no-clipboard flag.
HostFacts probe_host(const HostEnv& host, bool no_clipboard);

// The PATH search used by probe_host: the first executable regular file `name` in `path_var`.
std::string find_program(const std::string& name, const std::string& path_var);

}  // namespace blaude::osc52
