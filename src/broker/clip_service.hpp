// The clipboard service: what the clipboard stand-ins inside the sandbox (xclip, xsel, wl-copy,
// wl-paste, pbcopy, pbpaste: inside/clip_standin.hpp) ask of the host, over the broker
// (server.hpp) in common/clip_wire.hpp's messages.
//
// The decision table:
//   copy, text or image/png   → to the host clipboard (ClipHost::copy: the OSC 52 sink, with its
//                               sanitising), unless copying is off (--no-clipboard, no tool)
//   copy, any other type      → refused
//   read (paste) or type list → refused, unless the user has just pressed the paste key in
//                               blaude's own terminal (PasteGate: Ctrl+V or a bracketed paste's
//                               start opens a window of ~2 s for one read; the type list is
//                               answered while it is open) or the policy allows text reads
//                               always; never with the policy's `clipboard-paste off`
// Every decision is logged and counted for the summary after the session.
#pragma once
#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "broker/server.hpp"
#include "common/clip_wire.hpp"

namespace blaude::broker::clipboard {

enum class PastePolicy { Gated, Off, TextAlways };

// The paste window. Opened on the session loop's thread (the user's keystroke), used on the
// broker's: one atomic word. `now` is a monotonic clock in ms (now_ms()).
class PasteGate {
public:
  explicit PasteGate(uint64_t window_ms = 2000) : window_ms_(window_ms) {}
  void open(uint64_t now);
  // A read: true once per window (the window closes with it).
  bool take_read(uint64_t now);
  // The type list: while the window is open (it stays open).
  bool is_open(uint64_t now) const;
  uint64_t window_ms() const { return window_ms_; }

private:
  std::atomic<uint64_t> opened_{0};  // when the window opened; 0: closed
  uint64_t window_ms_;
};
uint64_t now_ms();

// Finds the paste keystroke in the user's input as it is read: Ctrl+V (0x16, Claude Code's
// image paste) or the start of a bracketed paste (ESC [ 2 0 0 ~), also split across reads.
class PasteKeys {
public:
  bool feed(std::string_view bytes);

private:
  size_t matched_ = 0;  // bytes of ESC [ 2 0 0 ~ seen at the end of the last read
};

// The host's side (the app's): the clipboard tools.
class ClipHost {
public:
  virtual ~ClipHost() = default;
  // On the broker's thread's loop, before any request.
  virtual void attach(uv_loop_t* loop) = 0;
  // "" when accepted (the copy goes on in the background), else why not (one line).
  virtual std::string copy(clip::Sel sel, clip::Kind kind, const std::string& type, std::string data) = 0;
  // What the host clipboard holds (of `type`), or why not; `types`: the type list.
  struct Read {
    bool ok = false;
    std::string data;  // or why not
  };
  virtual Read read(clip::Sel sel, clip::Kind kind, const std::string& type) = 0;
  virtual Read types(clip::Sel sel) = 0;
};

struct ClipConfig {
  // "" when copies are taken; else why not ("--no-clipboard", "no clipboard tool on the host").
  std::string copy_off;
  PastePolicy paste = PastePolicy::Gated;
  std::string paste_origin;  // where the policy said it ("" for the default)
  std::shared_ptr<PasteGate> gate;
  std::shared_ptr<ClipHost> host;
};

// The decision for one request, before any I/O. Pure but for the gate (a read takes the window).
struct Decision {
  bool allow = false;
  std::string why;  // refused: the one line for the tool's stderr
};
Decision decide(const clip::Request& r, const ClipConfig& cfg, uint64_t now);

std::unique_ptr<Service> make_clip_service(ClipConfig cfg);

}  // namespace blaude::broker::clipboard
