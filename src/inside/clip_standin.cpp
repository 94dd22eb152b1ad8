#include "inside/clip_standin.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/clip_wire.hpp"

namespace blaude::inside {

namespace {

constexpr const char* kSocket = "/run/blaude/services/clipboard";

struct Job {
  clip::Op op = clip::Op::Copy;
  clip::Sel sel = clip::Sel::Clipboard;
  std::string type;
  std::vector<std::string> files;  // xclip -i FILE...
  std::optional<std::string> text;  // wl-copy TEXT...
  bool filter = false;       // xclip -f: the input to stdout as well
  bool trim_newline = false; // xclip -rmlastnl, wl-copy -n
  bool newline = false;      // wl-paste of text: a newline after it (unless -n)
};

struct Usage {
  std::string why;
};

int usage_error(const char* name, const std::string& why, const char* accepted) {
  std::fprintf(stderr, "%s (blaude's stand-in): %s\n  it accepts: %s\n", name, why.c_str(), accepted);
  return 2;
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(size_t(n));
  }
  return true;
}

bool read_all(int fd, std::string& out, size_t max) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, size_t(n));
    if (out.size() > max) return false;
  }
}

bool read_exact(int fd, char* p, size_t len) {
  while (len > 0) {
    ssize_t n = ::read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= size_t(n);
  }
  return true;
}

// xclip's selection names may be abbreviated (c, clip, p, pri, ...).
std::optional<clip::Sel> xclip_selection(std::string_view s) {
  if (!s.empty() && std::string_view("clipboard").starts_with(s)) return clip::Sel::Clipboard;
  if (!s.empty() && std::string_view("primary").starts_with(s)) return clip::Sel::Primary;
  return std::nullopt;
}

constexpr const char* kXclipAccepts =
    "-selection clipboard|primary, -i/-in [FILE...], -o/-out, -t/-target TYPE (text, image/png, TARGETS), -f/-filter, "
    "-rmlastnl, -quiet, -silent, -verbose, -noutf8, -d/-display X, -l/-loops N, -h/-help";

std::variant<Job, Usage> parse_xclip(int argc, char** argv) {
  Job j;
  j.sel = clip::Sel::Primary;  // xclip's default, as the real one
  bool in = false, out = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a.starts_with("--")) a = a.substr(1);  // xclip takes --opt as -opt
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    if (a == "-selection" || a == "-sel" || a == "-se") {
      auto v = value();
      if (!v) return Usage{a + " needs a selection"};
      auto s = xclip_selection(*v);
      if (!s) return Usage{"selection " + *v + " is not one of clipboard, primary (secondary is not handed over)"};
      j.sel = *s;
    } else if (a == "-i" || a == "-in") {
      in = true;
    } else if (a == "-o" || a == "-out") {
      out = true;
    } else if (a == "-t" || a == "-target") {
      auto v = value();
      if (!v) return Usage{a + " needs a type"};
      j.type = *v;
    } else if (a == "-f" || a == "-filter") {
      j.filter = true;
    } else if (a == "-r" || a == "-rmlastnl") {
      j.trim_newline = true;
    } else if (a == "-quiet" || a == "-silent" || a == "-verbose" || a == "-noutf8" || a == "-q") {
    } else if (a == "-d" || a == "-display" || a == "-l" || a == "-loops") {
      if (!value()) return Usage{a + " needs a value"};
    } else if (!a.empty() && a[0] == '-') {
      return Usage{"unknown option " + a};
    } else {
      j.files.push_back(a);
    }
  }
  if (in && out) return Usage{"-i and -o together"};
  if (out && !j.files.empty()) return Usage{"a file with -o"};
  if (out) j.op = j.type == "TARGETS" ? clip::Op::Types : clip::Op::Paste;
  if (j.op == clip::Op::Paste && j.type == "TARGETS") j.op = clip::Op::Types;
  if (j.op == clip::Op::Types) j.type.clear();
  return j;
}

constexpr const char* kXselAccepts =
    "-b/--clipboard, -p/--primary, -i/--input, -o/--output (short options may be combined: -bi, -bo), "
    "-n/--nodetach, -t/--selectionTimeout MS, -l/--logfile F, -v/--verbose, -h/--help";

std::variant<Job, Usage> parse_xsel(int argc, char** argv) {
  Job j;
  j.sel = clip::Sel::Primary;
  bool in = false, out = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() { return i + 1 < argc ? (++i, true) : false; };
    if (a == "--clipboard") j.sel = clip::Sel::Clipboard;
    else if (a == "--primary") j.sel = clip::Sel::Primary;
    else if (a == "--input") in = true;
    else if (a == "--output") out = true;
    else if (a == "--nodetach" || a == "--verbose") {
    } else if (a == "--selectionTimeout" || a == "--logfile") {
      if (!value()) return Usage{a + " needs a value"};
    } else if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
      for (size_t k = 1; k < a.size(); ++k) {
        switch (a[k]) {
          case 'b': j.sel = clip::Sel::Clipboard; break;
          case 'p': j.sel = clip::Sel::Primary; break;
          case 'i': in = true; break;
          case 'o': out = true; break;
          case 'n': case 'v': break;
          case 't': case 'l':
            if (k + 1 != a.size() || !value()) return Usage{std::string("-") + a[k] + " needs a value"};
            break;
          default: return Usage{std::string("unknown option -") + a[k] + " (in " + a + ")"};
        }
      }
    } else {
      return Usage{"unknown option " + a};
    }
  }
  if (in && out) return Usage{"-i and -o together"};
  // As xsel: without either, it reads its input when that is not a terminal, else prints.
  if (!in && !out) out = ::isatty(0);
  if (out) j.op = clip::Op::Paste;
  return j;
}

constexpr const char* kWlCopyAccepts = "-p/--primary, -t/--type TYPE, -n/--trim-newline, -o/--paste-once, "
                                       "-f/--foreground, [TEXT...], -h/--help";

std::variant<Job, Usage> parse_wl_copy(int argc, char** argv) {
  Job j;
  bool text_args = false;
  std::string text;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!text_args && a == "--") {
      text_args = true;
      continue;
    }
    if (!text_args && !a.empty() && a[0] == '-' && a != "-") {
      if (a == "-p" || a == "--primary") j.sel = clip::Sel::Primary;
      else if (a == "-n" || a == "--trim-newline") j.trim_newline = true;
      else if (a == "-o" || a == "--paste-once" || a == "-f" || a == "--foreground") {
      } else if (a == "-t" || a == "--type") {
        if (i + 1 >= argc) return Usage{a + " needs a type"};
        j.type = argv[++i];
      } else if (a.starts_with("--type=")) {
        j.type = a.substr(7);
      } else {
        return Usage{"unknown option " + a};
      }
      continue;
    }
    if (!j.text) j.text = "";
    else *j.text += ' ';
    *j.text += a;
  }
  return j;
}

constexpr const char* kWlPasteAccepts = "-p/--primary, -t/--type TYPE, -l/--list-types, -n/--no-newline, -h/--help";

std::variant<Job, Usage> parse_wl_paste(int argc, char** argv) {
  Job j;
  j.op = clip::Op::Paste;
  bool no_newline = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-p" || a == "--primary") j.sel = clip::Sel::Primary;
    else if (a == "-l" || a == "--list-types") j.op = clip::Op::Types;
    else if (a == "-n" || a == "--no-newline") no_newline = true;
    else if (a == "-t" || a == "--type") {
      if (i + 1 >= argc) return Usage{a + " needs a type"};
      j.type = argv[++i];
    } else if (a.starts_with("--type=")) {
      j.type = a.substr(7);
    } else {
      return Usage{"unknown option " + a};
    }
  }
  if (j.op == clip::Op::Types) j.type.clear();
  j.newline = j.op == clip::Op::Paste && !no_newline && clip::kind_of(j.type) == clip::Kind::Text;
  return j;
}

std::variant<Job, Usage> parse_pb(int argc, char** argv, bool paste) {
  Job j;
  j.op = paste ? clip::Op::Paste : clip::Op::Copy;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-pboard" && i + 1 < argc && std::string(argv[i + 1]) == "general") ++i;
    else if (paste && a == "-Prefer" && i + 1 < argc && std::string(argv[i + 1]) == "txt") ++i;
    else return Usage{"unknown option " + a};
  }
  return j;
}

// Sends one request and reads its reply; nullopt with a message on stderr when the service
// cannot be reached.
std::optional<clip::Reply> ask(const char* name, const clip::Request& r) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::strncpy(sa.sun_path, kSocket, sizeof sa.sun_path - 1);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    std::fprintf(stderr,
                 "%s (blaude's stand-in): cannot reach blaude's clipboard service at %s: %s\n"
                 "  (the session has none when blaude could not make its private socket directory)\n",
                 name, kSocket, std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return std::nullopt;
  }
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string body = clip::encode(r);
  std::string msg;
  const uint32_t len = uint32_t(body.size());
  msg += char(len >> 24);
  msg += char(len >> 16);
  msg += char(len >> 8);
  msg += char(len);
  msg += body;
  unsigned char hdr[4];
  std::string reply;
  bool ok = write_all(fd, msg) && read_exact(fd, reinterpret_cast<char*>(hdr), 4);
  if (ok) {
    const uint32_t n = uint32_t(hdr[0]) << 24 | uint32_t(hdr[1]) << 16 | uint32_t(hdr[2]) << 8 | hdr[3];
    ok = n >= 1 && n <= 1 + clip::kMaxImage;
    if (ok) {
      reply.resize(n);
      ok = read_exact(fd, reply.data(), n);
    }
  }
  ::close(fd);
  std::optional<clip::Reply> rep = ok ? clip::parse_reply(reply) : std::nullopt;
  if (!rep) std::fprintf(stderr, "%s (blaude's stand-in): no answer from blaude's clipboard service\n", name);
  return rep;
}

}  // namespace

const char* clip_standin_name(const char* argv0) {
  if (!argv0) return nullptr;
  const char* base = std::strrchr(argv0, '/');
  base = base ? base + 1 : argv0;
  for (const char* n : kStandinNames)
    if (std::strcmp(base, n) == 0) return n;
  return nullptr;
}

int clip_standin(const char* name, int argc, char** argv) {
  const std::string n = name;
  const char* accepts = n == "xclip" ? kXclipAccepts : n == "xsel" ? kXselAccepts : n == "wl-copy" ? kWlCopyAccepts
                        : n == "wl-paste" ? kWlPasteAccepts : "no options";
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-help") == 0) {
      std::printf("%s: blaude's stand-in for the clipboard tool. Copies go to your host clipboard (unless blaude "
                  "runs with --no-clipboard); a read is answered only right after you press Ctrl+V (or paste) in "
                  "blaude's terminal.\nIt accepts: %s\n",
                  name, accepts);
      return 0;
    }
  std::variant<Job, Usage> parsed = n == "xclip" ? parse_xclip(argc, argv)
                                    : n == "xsel" ? parse_xsel(argc, argv)
                                    : n == "wl-copy" ? parse_wl_copy(argc, argv)
                                    : n == "wl-paste" ? parse_wl_paste(argc, argv)
                                                      : parse_pb(argc, argv, n == "pbpaste");
  if (auto* u = std::get_if<Usage>(&parsed)) return usage_error(name, u->why, accepts);
  Job& j = std::get<Job>(parsed);
  if (j.type.size() > clip::kMaxType || clip::kind_of(j.type) == clip::Kind::Other) {
    std::fprintf(stderr, "%s (blaude's stand-in): type %s is not handed over: text and image/png only\n", name,
                 j.type.size() > clip::kMaxType || j.type.find_first_of("\x1b\n\r") != std::string::npos ? "(unprintable)"
                                                                                                       : j.type.c_str());
    return 1;
  }
  clip::Request r;
  r.op = j.op;
  r.sel = j.sel;
  r.type = j.type;
  const size_t cap = clip::kind_of(j.type) == clip::Kind::Text ? clip::kMaxText : clip::kMaxImage;
  if (r.op == clip::Op::Copy) {
    if (j.text) {
      r.data = *j.text;
    } else if (!j.files.empty()) {
      for (const auto& f : j.files) {
        int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
        bool ok = fd >= 0 && read_all(fd, r.data, cap);
        if (fd >= 0) ::close(fd);
        if (!ok) {
          std::fprintf(stderr, "%s (blaude's stand-in): cannot read %s (or it is over %zu bytes)\n", name, f.c_str(), cap);
          return 1;
        }
      }
    } else if (!read_all(0, r.data, cap)) {
      std::fprintf(stderr, "%s (blaude's stand-in): the input is over %zu bytes (or unreadable); nothing copied\n", name, cap);
      return 1;
    }
    if (j.trim_newline && !r.data.empty() && r.data.back() == '\n') r.data.pop_back();
    if (j.filter && !write_all(1, r.data)) return 1;
  }
  auto rep = ask(name, r);
  if (!rep) return 1;
  if (!rep->ok) {
    std::fprintf(stderr, "%s (blaude's stand-in): %s\n", name, rep->data.c_str());
    return 1;
  }
  if (r.op == clip::Op::Copy) return 0;
  if (j.newline && (rep->data.empty() || rep->data.back() != '\n')) rep->data += '\n';
  return write_all(1, rep->data) ? 0 : 1;
}

}  // namespace blaude::inside
