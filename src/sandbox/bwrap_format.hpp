// --dry-run / --debug: the bwrap command as a shell would need it, one option group per line.
#pragma once
#include <string>
#include <vector>

namespace blaude::sandbox {

// POSIX shell quoting: bare when safe, else single quotes ('\'' for a quote).
std::string shell_quote(const std::string& s);

// "bwrap \\\n  --ro-bind /usr /usr \\\n  ..." — each bwrap option with its arguments on one line
// (an --overlay-src with its --tmp-overlay, a --tmpfs with its --remount-ro), the command last.
std::string format_command(const std::vector<std::string>& argv);

}  // namespace blaude::sandbox
