// blaude.1, rendered from the same option table as --help (option_table.cpp): the man page
// cannot list an option the parser does not take, or miss one it does.
#include <string>

#include "cli/docs.hpp"
#include "cli/option_table.hpp"
#include "cli/parse.hpp"

namespace blaude::cli {

namespace {

// roff: a backslash is \e, a minus (every '-' here names an option or is read as one) is \-,
// and a line must not start with '.' or '\'' (a request).
std::string roff(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string bold(std::string_view s) { return "\\fB" + roff(s) + "\\fR"; }
std::string italic(std::string_view s) { return "\\fI" + roff(s) + "\\fR"; }

std::string synopsis(const OptionSpec& s) {
  std::string out;
  if (!s.short_name.empty()) out += bold(s.short_name) + ", ";
  out += bold(s.name);
  if (!s.metavar.empty()) out += " " + italic(s.metavar);
  return out;
}

void para(std::string& out, std::string_view text) { out += ".PP\n" + roff(text) + "\n"; }

}  // namespace

std::string man_page(std::string_view version, std::string_view date) {
  std::string out;
  out += ".\\\" Generated from blaude's option table (src/cli/option_table.cpp); do not edit.\n";
  out += ".TH BLAUDE 1 \"" + roff(date) + "\" \"blaude " + roff(version) + "\" \"User Commands\"\n";
  out += ".SH NAME\nblaude \\- run Claude Code in a bubblewrap sandbox\n";
  out += ".SH SYNOPSIS\n";
  out += ".B blaude\n[\\fIblaude options\\fR] [\\fIclaude options and arguments\\fR]\n.br\n";
  out += ".B blaude\n[\\fIblaude options\\fR] \\fB\\-\\-exec\\fR \\fICMD\\fR [\\fIARGS\\fR...]\n.br\n";
  out += ".B blaude\n\\fBdoctor\\fR | \\fBselftest\\fR | \\fBfix\\-apparmor\\fR\n.br\n";
  out += ".B blaude\n\\fBnet sessions\\fR | \\fBnet log\\fR [\\fB\\-\\-session\\fR \\fIPID\\fR] | "
         "\\fBnet allow\\fR \\fIPATTERN\\fR [\\fB\\-\\-session\\fR \\fIPID\\fR]\n";
  out += ".SH DESCRIPTION\n";
  para(out,
       "blaude runs Claude Code with --dangerously-skip-permissions inside an OS sandbox "
       "(bubblewrap on Linux), behind a terminal-aware supervisor that delivers OSC 52 clipboard "
       "writes to the host clipboard and keeps asciinema recordings clean. It is a drop-in "
       "replacement for claude: every argument it does not know goes to Claude Code unchanged "
       "and in order.");
  para(out,
       "The sandbox has a tmpfs home, a read-only system, the current directory read-write at "
       "its own path (the working directory inside is the one outside; /workspaces/<dir> is a "
       "link to it; --workspace-path=seed puts it at /workspaces/<dir> only) with its dangerous files (.git/hooks, .git/config, shell rc files, "
       ".vscode, .mcp.json, ...) protected, ~/.claude read-write (but for its hooks, plugins and "
       "the scripts its settings name; new commands in Claude Code's settings are undone after the "
       "session), ~/.config as a write-discarding "
       "overlay, and a cleared environment with an allowlist.");
  out += ".SH OPTIONS\n";
  para(out, "blaude's options may appear anywhere on the line before a --.");
  for (const OptionSpec& s : option_table()) {
    out += ".TP\n" + synopsis(s) + "\n" + roff(s.man.empty() ? s.help : s.man) + "\n";
  }
  out += ".TP\n" + bold("--") + "\n" +
         roff("End of blaude's options: everything after it goes to claude as it is (without the "
              "-- itself), even words spelled like blaude options.") +
         "\n";
  para(out,
       "Everything else (-p, -c, -v, --resume, mcp list, ...) goes to claude. An unknown --option "
       "within two edits of a blaude option (--dryrun, --no-netwrok) is refused with a suggestion "
       "and exit status 2, unless it is one of claude's own options; put it after -- to pass it "
       "anyway.");
  out += ".SH COMMANDS\nAs the first argument:\n";
  for (const CommandSpec& c : command_table()) out += ".TP\n" + bold(c.name) + "\n" + roff(c.help) + "\n";
  para(out,
       "net log and net allow reach a session in proxy mode (--allow-domain, --publish, or a policy's "
       "allow-domain) from another terminal of the same user. net log prints one line for each "
       "decision of its proxy as it happens (\"refused ...\", \"allowed ...\", and \"added ...\" for "
       "each net allow) until the session ends or Ctrl-C; host names come from the sandbox and are "
       "printed escaped, at most 512 bytes a line. net allow PATTERN takes the --allow-domain language, "
       "refuses a bad pattern with the same words, and adds the rule to that session only: its "
       "allowlist only grows, each addition is in the log, and the summary after the session names "
       "them. With several sessions running, --session PID picks one; net sessions lists them.");
  out += ".SH EXIT STATUS\n";
  para(out,
       "The exit status of claude (or CMD); 128+N when it died of signal N; 1 for a blaude error; "
       "2 for a usage error; 126 when CMD cannot be executed; 127 when CMD is not found.");
  out += ".SH ENVIRONMENT\n";
  out += ".TP\n" + bold("BLAUDE_LOG") + "\n" + roff("Log level: trace, debug, info, warn, error or off.") + "\n";
  out += ".TP\n" + bold("XDG_STATE_HOME") + "\n" +
         roff("The log is $XDG_STATE_HOME/blaude/blaude.log (default ~/.local/state/blaude/blaude.log).") +
         "\n";
  out += ".TP\n" + bold("XDG_RUNTIME_DIR") + "\n" +
         roff("Where a proxy-mode session listens for net log and net allow (below); when unset, "
              "/run/user/UID if it is a 0700 directory of yours.") +
         "\n";
  out += ".SH FILES\n";
  out += ".TP\n" + italic(".blaude") + ", " + italic(".xclaude") + "\n" +
         roff("A project's sandbox policy; applied only after you trust it (blaude asks).") + "\n";
  out += ".TP\n" + italic("~/.config/blaude/") + "\n" + roff("Your own policy and the trust ledger.") + "\n";
  out += ".TP\n" + italic("$XDG_RUNTIME_DIR/blaude/net-PID.sock") + "\n" +
         roff("A running proxy-mode session's control socket (directory 0700, socket 0600; only your "
              "own user outside any sandbox is answered). Removed when the session ends; one left by "
              "a killed session is removed by the next net command.") +
         "\n";
  out += ".SH SEE ALSO\n.BR bwrap (1),\n.BR claude (1)\n";
  return out;
}

}  // namespace blaude::cli
