// What blaude writes to the user's terminal on the child's behalf: the undo of the state the
// child left changed (at the end of a session and on Ctrl-Z), that state again (on fg), and the
// fixed sequence the SIGKILL watchdog writes without knowing the state.
#pragma once
#include <string>
#include <string_view>

#include "term/tracker.hpp"

namespace blaude::term {

// The shortest way back to the defaults for what `t` saw changed, and nothing for what it did
// not: empty when the child left the terminal as a shell prompt needs it. When the child
// stopped in the middle of a sequence, it starts by ending that sequence (CAN, and `ESC \` for a
// DCS, whose payload tmux ends only so), so that the rest is read as written.
std::string undo(const Tracker& t);

// The child's state again, for a terminal that undo() put back: the alternate screen, keyboard
// protocols, modes, scroll region, cursor, rendition. The screen contents are the child's to
// redraw (blaude sends it SIGWINCH).
std::string reapply(const Tracker& t);

// blaude's own bracket around a session, on a terminal it fences (pty/fence.hpp): the user's
// title (window and icon) pushed on the terminal's title stack at the start and on fg, popped
// after the undo at the end and on Ctrl-Z. A terminal without a title stack ignores both.
inline constexpr std::string_view kTitleSave = "\x1b[22;0t";
inline constexpr std::string_view kTitleRestore = "\x1b[23;0t";

// Written by the watchdog when blaude was SIGKILLed: end any open sequence, end synchronized
// output, pop the keyboard protocol on the alternate screen, leave it, pop it on the main
// screen, modifyOtherKeys off, every mouse mode and encoding off, focus reports off, bracketed
// paste off, normal cursor and keypad keys, cursor visible, normal rendition, the user's title
// popped (kTitleSave was written at the start). Each part is harmless when its mode was never on.
extern const std::string_view kSafeReset;

}  // namespace blaude::term
