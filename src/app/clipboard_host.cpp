#include "app/clipboard_host.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/data_fd.hpp"
#include "common/unique_fd.hpp"
#include "osc52/decode.hpp"

extern char** environ;

namespace blaude::app {

using broker::clipboard::ClipHost;
using clip::Kind;

ClipTools choose_clip_tools(const osc52::HostFacts& h, const std::string& wl_paste, const std::string& pbpaste) {
  ClipTools t;
  t.copy = osc52::choose_backend(h);
  // Reading follows the same order (and the same off switch).
  if (h.disabled) return t;
  if (!h.wayland_display.empty() && !wl_paste.empty()) {
    t.reader = wl_paste;
    t.reader_kind = osc52::Tool::WlCopy;
  } else if (!h.display.empty() && !h.xclip.empty()) {
    t.reader = h.xclip;
    t.reader_kind = osc52::Tool::Xclip;
  } else if (!h.display.empty() && !h.xsel.empty()) {
    t.reader = h.xsel;
    t.reader_kind = osc52::Tool::Xsel;
  } else if (h.macos && !pbpaste.empty()) {
    t.reader = pbpaste;
    t.reader_kind = osc52::Tool::Pbcopy;
  }
  return t;
}

namespace {

// Starts a host clipboard tool, no shell: stdin from `in_fd` and stdout to `out_fd` (-1: /dev/null),
// stderr to /dev/null, every signal unblocked (the broker's thread blocks them all), in a session
// of its own (the selection owner it forks outlives blaude and the terminal). posix_spawn's result.
int spawn_tool(const std::vector<std::string>& argv, int in_fd, int out_fd, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  else posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&at, &none);
  short flags = POSIX_SPAWN_SETSIGMASK;
#ifdef POSIX_SPAWN_SETSID
  flags |= POSIX_SPAWN_SETSID;
#endif
  posix_spawnattr_setflags(&at, flags);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid = -1;
  int rc = posix_spawn(&pid, args[0], &fa, &at, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return rc;
}

// Waits up to `ms` for `pid`; kills it after. True when it exited 0 (or was reaped elsewhere).
bool wait_bounded(pid_t pid, int ms, bool& late) {
  int status = 0;
  late = false;
  for (int waited = 0;; waited += 10) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (r < 0) return errno == ECHILD;
    if (waited >= ms) break;
    ::usleep(10'000);
  }
  late = true;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

}  // namespace

std::optional<std::string> read_bounded(const std::vector<std::string>& argv, size_t max, int timeout_ms,
                                        std::string& why) {
  int p[2];
  if (::pipe(p) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  UniqueFd rd(p[0]), wr(p[1]);
  ::fcntl(rd.get(), F_SETFD, FD_CLOEXEC);
  ::fcntl(rd.get(), F_SETFL, ::fcntl(rd.get(), F_GETFL) | O_NONBLOCK);
  pid_t pid = -1;
  int rc = spawn_tool(argv, -1, wr.get(), pid);
  wr.reset();
  if (rc != 0) {
    why = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return std::nullopt;
  }
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool eof = false, over = false, late = false;
  char buf[65536];
  while (!eof && !over) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      late = true;
      break;
    }
    pollfd pf{rd.get(), POLLIN, 0};
    int n = ::poll(&pf, 1, int(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t got = ::read(rd.get(), buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) eof = true;
    else {
      out.append(buf, size_t(got));
      over = out.size() > max;
    }
  }
  // Its stdout is at its end (or no longer read): it exits now, or is made to.
  if (late || over) ::kill(pid, SIGKILL);
  bool killed = false;
  const bool exited0 = wait_bounded(pid, 500, killed);
  if (late) why = argv[0] + " did not answer within " + std::to_string(timeout_ms) + " ms";
  else if (over) why = "the host clipboard holds more than " + std::to_string(max) + " bytes";
  else if (!exited0) why = "the host clipboard holds nothing of that type";
  else return out;
  return std::nullopt;
}

namespace {

std::string run_copy_helper(const std::vector<std::string>& argv, const std::string& payload, int timeout_ms) {
  UniqueFd in = data_fd("blaude-clip", payload);
  if (!in) return std::string("cannot buffer the copy: ") + std::strerror(errno);
  pid_t pid = -1;
  int rc = spawn_tool(argv, in.get(), -1, pid);
  if (rc != 0) return "cannot start " + argv[0] + ": " + std::strerror(rc);
  bool late = false;
  if (wait_bounded(pid, timeout_ms, late)) return "";
  return late ? argv[0] + " did not finish in time; nothing copied" : argv[0] + " failed; nothing copied";
}

class Host : public ClipHost {
public:
  explicit Host(ClipTools t) : t_(std::move(t)) {}

  // Nothing runs on the broker's loop: a uv_spawn there would put libuv's SIGCHLD handler in
  // place of pipes mode's own (pty/signal_pipe.hpp), which then never hears the child's exit.
  void attach(uv_loop_t*) override {}

  std::string copy(clip::Sel sel, Kind kind, const std::string&, std::string data) override {
    if (t_.copy.tool == osc52::Tool::None) return "no clipboard tool on the host (xclip, xsel or wl-copy with a display)";
    osc52::Copy c;
    c.targets = {sel == clip::Sel::Primary ? osc52::Target::Primary : osc52::Target::Clipboard};
    if (kind == Kind::Png) {
      if (osc52::helper_argv(t_.copy, c.targets[0], "image/png").empty())
        return std::string("the host's ") + osc52::tool_name(t_.copy.tool) + " cannot copy an image";
      c.type = "image/png";
      c.text = std::move(data);
    } else {
      // As an OSC 52 copy: valid UTF-8, control characters but TAB, LF, CR taken out.
      if (!osc52::valid_utf8(data)) return "the text is not valid UTF-8; nothing copied";
      c.text = osc52::strip_controls(data, c.removed_controls);
      if (c.removed_controls)
        spdlog::info("broker: clipboard: removed {} control character(s) from the copied text (possible paste-jacking)",
                     c.removed_controls);
      if (c.text.empty()) return "nothing left to copy once control characters were removed";
    }
    // The OSC 52 sink's command (osc52::helper_argv), run here: the tool takes its stdin, forks
    // the selection's owner and exits.
    std::vector<std::string> argv = osc52::helper_argv(t_.copy, c.targets[0], c.type);
    if (argv.empty()) return std::string("the host's ") + osc52::tool_name(t_.copy.tool) + " cannot set that selection";
    return run_copy_helper(argv, c.text, 3000);
  }

  Read read(clip::Sel sel, Kind kind, const std::string& type) override {
    const bool primary = sel == clip::Sel::Primary;
    std::vector<std::string> argv{t_.reader};
    const bool png = kind == Kind::Png;
    switch (t_.reader_kind) {
      case osc52::Tool::WlCopy:
        if (primary) argv.push_back("--primary");
        argv.insert(argv.end(), {"--no-newline", "--type", png ? "image/png" : "text/plain"});
        break;
      case osc52::Tool::Xclip:
        argv.insert(argv.end(), {"-selection", primary ? "primary" : "clipboard", "-o"});
        if (png) argv.insert(argv.end(), {"-t", "image/png"});
        break;
      case osc52::Tool::Xsel:
        if (png) return {false, "the host's xsel cannot read an image"};
        argv.insert(argv.end(), {primary ? "--primary" : "--clipboard", "--output"});
        break;
      case osc52::Tool::Pbcopy:
        if (png) return {false, "pbpaste cannot read an image"};
        break;
      default:
        return {false, "no clipboard tool on the host to read with (xclip or wl-paste with a display)"};
    }
    (void)type;
    std::string why;
    auto got = read_bounded(argv, png ? clip::kMaxImage : clip::kMaxText, t_.read_timeout_ms, why);
    if (!got) return {false, why};
    if (png && !clip::looks_like_png(*got)) return {false, "the host clipboard's image/png is not a PNG file"};
    return {true, std::move(*got)};
  }

  Read types(clip::Sel sel) override {
    const bool primary = sel == clip::Sel::Primary;
    std::vector<std::string> argv{t_.reader};
    switch (t_.reader_kind) {
      case osc52::Tool::WlCopy:
        if (primary) argv.push_back("--primary");
        argv.push_back("--list-types");
        break;
      case osc52::Tool::Xclip:
        argv.insert(argv.end(), {"-selection", primary ? "primary" : "clipboard", "-t", "TARGETS", "-o"});
        break;
      case osc52::Tool::Xsel:
      case osc52::Tool::Pbcopy:
        return {false, std::string("the host's ") + (t_.reader_kind == osc52::Tool::Xsel ? "xsel" : "pbpaste") +
                           " cannot list the clipboard's types"};
      default:
        return {false, "no clipboard tool on the host to read with (xclip or wl-paste with a display)"};
    }
    std::string why;
    auto got = read_bounded(argv, 64 * 1024, t_.read_timeout_ms, why);
    if (!got) return {false, why};
    return {true, std::move(*got)};
  }

private:
  ClipTools t_;
};

}  // namespace

std::shared_ptr<ClipHost> make_clip_host(ClipTools tools) { return std::make_shared<Host>(std::move(tools)); }

}  // namespace blaude::app
