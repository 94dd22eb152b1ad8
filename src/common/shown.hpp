// The one way blaude shows a string that someone else chose (a file name the sandbox made, a key
// or value from a file it wrote) on the terminal or in a report: nothing in it can move the
// cursor, start an escape sequence, end a line, reorder the text around it or hide in it. Pure.
#pragma once
#include <string>
#include <string_view>

namespace blaude {

// `s` with every character that is not plain visible text escaped: C0 controls and DEL as \n,
// \r, \t, \e or \xNN, a backslash as \\, C1 controls, the bidirectional controls (U+061C,
// U+200E-200F, U+202A-202E, U+2066-2069), zero-width and invisible ones (U+200B-200D, U+2060,
// U+FEFF) and the line and paragraph separators (U+2028-2029) as \uXXXX, and each byte of
// invalid UTF-8 as \xNN. Everything else (other UTF-8 text) as it is. One line, always.
std::string shown(std::string_view s);

// True when shown(s) == s.
bool shows_as_is(std::string_view s);

// A word for a POSIX shell that stays one printable line: single quotes when shown() leaves it
// as it is, else bash's $'...' with each byte of what shown() would escape as \xNN (so a pasted
// undo line names exactly the file, newline or not).
std::string shell_word_shown(std::string_view s);

}  // namespace blaude
