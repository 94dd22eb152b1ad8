// The host's side of the clipboard stand-ins (broker/clip_service.hpp's ClipHost): a copy runs
// the OSC 52 sink's command (osc52::helper_argv: the same tool and selection, `-t`/`--type` for
// an image) after the same sanitising as an OSC 52 copy (valid UTF-8, control characters
// removed) or, for an image, a PNG signature check. It runs with posix_spawn on the broker's
// thread, bounded to 3 s (the tool forks the selection's owner and exits), not with uv_spawn on
// the broker's loop: libuv's SIGCHLD handler would replace pipes mode's own. Reads run the host's
// own tool (xclip -o, wl-paste, xsel -o, pbpaste) the same way, bounded in bytes and time.
#pragma once
#include <memory>
#include <string>

#include "broker/clip_service.hpp"
#include "osc52/backend.hpp"

namespace blaude::app {

struct ClipTools {
  osc52::Backend copy;  // Tool::None: no copies
  std::string reader;   // the tool that reads: wl-paste, xclip, xsel, pbpaste ("" none)
  osc52::Tool reader_kind = osc52::Tool::None;  // which family `reader` is (WlCopy = wl-paste)
  int read_timeout_ms = 2000;
};

// The tools for these host facts (osc52::choose_backend's order); `wl_paste`, `pbpaste`: their paths.
ClipTools choose_clip_tools(const osc52::HostFacts& h, const std::string& wl_paste, const std::string& pbpaste);

std::shared_ptr<broker::clipboard::ClipHost> make_clip_host(ClipTools tools);

// Runs argv (no shell, stdin and stderr /dev/null) and returns its stdout when it exits 0
// within `timeout_ms` and writes at most `max` bytes; else nullopt and why.
std::optional<std::string> read_bounded(const std::vector<std::string>& argv, size_t max, int timeout_ms,
                                        std::string& why);

}  // namespace blaude::app
