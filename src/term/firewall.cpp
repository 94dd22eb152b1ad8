#include "term/firewall.hpp"

#include <algorithm>
#include <array>

namespace blaude::term {

namespace {

constexpr char ESC = '\x1b';
constexpr unsigned char ENQ = 0x05;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool starts_with_nocase(std::string_view s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != p[i]) return false;
  }
  return true;
}

Judgement pass(const char* rule) { return {Verdict::Pass, rule}; }
Judgement drop(const char* rule) { return {Verdict::Drop, rule}; }

const char* broken_rule(Why w) {
  switch (w) {
    case Why::Overlong: return "over-long sequence (over the size cap)";
    case Why::Malformed: return "malformed sequence (a control, DEL or 8-bit byte inside)";
    case Why::Cancelled: return "sequence cancelled by CAN or SUB";
    case Why::Interrupted: return "sequence broken by ESC or a C1 control";
    case Why::TimedOut: return "sequence left open too long";
    case Why::Unterminated: return "sequence open at the end of output";
    case Why::None: break;
  }
  return "broken sequence";
}

// XTWINOPS: the window and title operations, by their first parameter.
Judgement judge_winops(long op) {
  switch (op) {
    case 14: case 16: case 18: return pass("size report (cell size, for images)");
    case 22: case 23: return pass("title push/pop");
    case 20: case 21: return drop("title report (CSI 20/21 t)");
    default: break;
  }
  if (op >= 1 && op <= 9) return drop("window move/resize/raise/iconify (CSI 1-9 t)");
  if (op >= 24) return drop("window resize (DECSLPP, CSI >=24 t)");
  return drop("window report (CSI 11/13/19 t)");
}

Judgement judge_csi(const Token& t) {
  const CsiParts p = csi_parts(t);
  if (!p.valid) return drop("malformed CSI (marker or parameter misplaced)");
  if (p.interm == "*" && p.final == 'y') return drop("DECRQCRA (answers with screen contents)");
  if (p.interm.empty() && p.marker == 0 && p.final == 't') return judge_winops(first_param(p.params));
  if (p.interm.empty() && (p.marker == 0 || p.marker == '?') && p.final == 'i')
    return drop("media copy (prints the screen to the host)");
  return pass("CSI");
}

Judgement judge_esc(const Token& t) {
  const std::string_view rest = t.bytes.substr(1);
  if (rest.size() >= 1 && rest[0] == '%' && rest != "%G")
    return drop("ESC % (leaves UTF-8: C1 bytes in text would act)");
  if (rest == " G") return drop("S8C1T (8-bit C1 replies)");
  return pass("ESC");
}

Judgement judge_osc(std::string_view body) {
  size_t k = 0;
  long num = 0;
  while (k < body.size() && body[k] >= '0' && body[k] <= '9' && k < 6) num = num * 10 + (body[k++] - '0');
  if (k == 0) return drop("OSC without a number");
  const bool args = k < body.size() && body[k] == ';';
  if (!args && k < body.size()) return drop("OSC with a malformed number");
  const std::string_view rest = args ? body.substr(k + 1) : std::string_view();
  switch (num) {
    case 0: case 1: case 2: return args ? pass("title") : drop("title without text");
    case 4: case 10: case 11: case 12: return args ? pass("colour set/query") : drop("colour without arguments");
    case 104: case 110: case 111: case 112: return pass("colour reset");
    case 9: case 99: return pass("notification / progress");
    case 777: return starts_with(rest, "notify;") ? pass("notification") : drop("OSC 777 other than notify");
    case 52: return {Verdict::Clipboard, "OSC 52 clipboard"};
    case 8: {
      const size_t semi = rest.find(';');
      if (!args || semi == std::string_view::npos) return drop("malformed OSC 8");
      const std::string_view uri = rest.substr(semi + 1);
      if (uri.empty() || starts_with_nocase(uri, "http://") || starts_with_nocase(uri, "https://"))
        return pass("hyperlink (http/https)");
      return drop("hyperlink to a target other than http(s) (text kept)");
    }
    case 7: return drop("OSC 7 working directory");
    case 50: return drop("OSC 50 font");
    case 1337: return drop("iTerm2 OSC 1337");
    case 5113: return drop("kitty file transfer OSC 5113");
    default: return drop("unknown OSC number");
  }
}

Judgement judge_dcs(const Token& t) {
  const DcsParts p = dcs_parts(t);
  if (!p.valid) return drop("unknown DCS");
  if (p.final == '@' && starts_with(p.body, "kitty-cmd")) return drop("kitty remote control");
  if (p.final == 'q' && p.interm == "$") {
    static constexpr std::array<std::string_view, 10> kNames = {"m",   "r",   "s",   "t",  " q",
                                                                "\"q", "\"p", "$}", "$|", "*|"};
    if (p.params.empty() && std::find(kNames.begin(), kNames.end(), p.body) != kNames.end())
      return pass("DECRQSS of a known setting");
    return drop("DECRQSS of an unknown setting (echoed by some terminals)");
  }
  if (p.final == 'q' && p.interm == "+") {
    bool hex = p.params.empty();
    for (char c : p.body) hex &= (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ';';
    return hex ? pass("XTGETTCAP") : drop("XTGETTCAP with a payload other than hex");
  }
  if (p.final == 'q' && p.interm.empty()) {
    bool digits = true;
    for (char c : p.params) digits &= (c >= '0' && c <= '9') || c == ';';
    return digits ? pass("sixel") : drop("sixel with malformed parameters");
  }
  if (p.final == 's' && p.interm.empty() && (p.params == "=1" || p.params == "=2") && p.body.empty())
    return pass("synchronized update (DCS = 1/2 s)");
  if (p.final == '|') return drop("DECUDK (user-defined keys)");
  if (p.final == 'p' && p.interm == "+") return drop("XTSETTCAP");
  return drop("unknown DCS");
}

Judgement judge_apc(std::string_view body) {
  if (body.empty() || body[0] != 'G') return drop("unknown APC");
  // kitty graphics: `G key=value,...;payload`. t=f, t=t and t=s read a file or shared memory of
  // the terminal's host, by a name the sandbox chose (and the reply tells whether it exists).
  std::string_view keys = body.substr(1, body.find(';') == std::string_view::npos ? body.size() : body.find(';') - 1);
  size_t from = 0;
  while (from <= keys.size()) {
    size_t comma = keys.find(',', from);
    std::string_view kv = keys.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    if (kv == "t=f" || kv == "t=t" || kv == "t=s") return drop("kitty graphics from a host file");
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return pass("kitty graphics");
}

Judgement judge_one(const Token& t, bool inner) {
  switch (t.kind) {
    case Tok::Text: return pass("text");
    case Tok::Control:
      if (t.c1) return drop("8-bit C1 control");
      if (!t.bytes.empty() && static_cast<unsigned char>(t.bytes[0]) == ENQ) return drop("ENQ (answerback)");
      return pass("control");
    case Tok::Broken: return drop(broken_rule(t.why));
    default: break;
  }
  if (t.c1) return drop("8-bit C1 form of a sequence");
  switch (t.kind) {
    case Tok::Esc: return judge_esc(t);
    case Tok::Csi: return judge_csi(t);
    case Tok::Osc: return judge_osc(string_body(t));
    case Tok::Dcs:
      if (t.tmux) {
        if (inner) return drop("tmux passthrough nested in another");
        Lexer lx;
        std::vector<Token> toks;
        const std::string in = tmux_inner(t);
        lx.feed(in, 0, toks);
        lx.finish(toks);
        Judgement all = pass("tmux passthrough");
        for (const Token& i : toks) {
          Judgement j = judge_one(i, true);
          if (j.verdict == Verdict::Drop) return j;
          if (j.verdict == Verdict::Clipboard) all = j;
        }
        return all;
      }
      return judge_dcs(t);
    case Tok::Apc: return judge_apc(string_body(t));
    case Tok::Pm: return drop("PM");
    case Tok::Sos: return drop("SOS");
    case Tok::ScreenTitle: return drop("screen title (ESC k)");
    default: return drop("unknown");
  }
}

}  // namespace

Judgement judge(const Token& t) { return judge_one(t, false); }

std::string tmux_inner(const Token& t) {
  std::string_view b = string_body(t);
  if (starts_with(b, "tmux;")) b.remove_prefix(5);
  std::string r;
  r.reserve(b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    r.push_back(b[i]);
    if (b[i] == ESC && i + 1 < b.size() && b[i + 1] == ESC) ++i;
  }
  return r;
}

Osc52 osc52_of(const Token& t) {
  Osc52 c;
  c.tmux = t.tmux;
  if (t.tmux) {
    Lexer lx;
    std::vector<Token> toks;
    const std::string in = tmux_inner(t);
    lx.feed(in, 0, toks);
    lx.finish(toks);
    for (const Token& i : toks)
      if (i.kind == Tok::Osc && judge_osc(string_body(i)).verdict == Verdict::Clipboard) {
        c.body.assign(string_body(i));
        break;
      }
  } else {
    c.body.assign(string_body(t));
  }
  // `52;Pc;Pd`: a read request asks with `?` for Pd (C0 controls are skipped, as terminals do).
  std::string_view rest = std::string_view(c.body).substr(std::min<size_t>(3, c.body.size()));
  const size_t semi = rest.find(';');
  if (semi == std::string_view::npos) {
    c.read_request = rest.find('?') != std::string_view::npos;
  } else {
    c.has_data = true;
    for (char ch : rest.substr(semi + 1)) {
      if (static_cast<unsigned char>(ch) < 0x20) continue;
      c.read_request = ch == '?';
      break;
    }
  }
  return c;
}

Firewall::Firewall(ClipboardMode mode, LexerLimits lim) : lexer_(lim), mode_(mode) {
  // The plain CSIs the table passes whatever their parameters: every final but `t` (window
  // operations and reports) and `i` (media copy). Those with intermediates (DECRQCRA's `* y`)
  // and malformed ones still come as tokens.
  std::string finals;
  for (int f = 0x40; f <= 0x7e; ++f)
    if (f != 't' && f != 'i') finals.push_back(static_cast<char>(f));
  lexer_.set_plain_csi(finals);
  // Titles and http(s) links (a TUI's OSCs) pass as they are: no token for them.
  lexer_.set_plain_osc([](std::string_view body) { return judge_osc(body).verdict == Verdict::Pass; });
}

void Firewall::drop(const Token& t, const char* rule) {
  ++dropped_total_;
  auto c = std::find_if(counts_.begin(), counts_.end(), [rule](const auto& p) { return p.first == rule; });
  if (c == counts_.end()) counts_.emplace_back(rule, 1);
  else ++c->second;
  if (dropped_.size() < kKeep) dropped_.push_back({rule, std::string(t.bytes.substr(0, 48))});
}

void Firewall::apply(std::string& out, std::vector<Osc52>& clips, size_t from) {
  for (size_t k = from; k < toks_.size(); ++k) {
    const Token& t = toks_[k];
    if (t.kind == Tok::Text) {  // most tokens: no judging needed
      out.append(t.bytes);
      show(t);
      continue;
    }
    const Judgement j = judge(t);
    if (j.verdict == Verdict::Pass) {
      out.append(t.bytes);
      show(t);
    } else if (j.verdict == Verdict::Drop) {
      drop(t, j.rule);
    } else {
      Osc52 c = osc52_of(t);
      if (mode_ == ClipboardMode::PassWrites && c.has_data && !c.read_request) {
        out.append(t.bytes);
        show(t);
      }
      clips.push_back(std::move(c));
    }
  }
}

void Firewall::feed(std::string_view in, uint64_t now_ms, std::string& out, std::vector<Osc52>& clips) {
  if (rest_ready_) {  // pass() lexed these bytes already
    rest_ready_ = false;
    out.append(rest_);
    rest_.clear();
    return;
  }
  toks_.clear();
  lexer_.feed(in, now_ms, toks_);
  if (tracker_) tracker_->begin_tokens(lexer_.windows(), now_ms);
  apply(out, clips, 0);
  if (tracker_) tracker_->end_tokens();
}

size_t Firewall::pass(std::string_view in, uint64_t now_ms, std::vector<Osc52>& clips) {
  toks_.clear();
  lexer_.feed(in, now_ms, toks_);
  if (tracker_) tracker_->begin_tokens(lexer_.windows(), now_ms);
  size_t k = 0, t = 0;
  for (; t < toks_.size(); ++t) {
    const Token& tok = toks_[t];
    if (tok.bytes.data() != in.data() + k) break;  // a sequence held from the slice before
    if (tok.kind != Tok::Text && judge(tok).verdict != Verdict::Pass) break;
    k += tok.bytes.size();
    show(tok);
  }
  // The rest is shown to the tracker now too: the session writes it right after the prefix,
  // before anything reads the tracker.
  if (k < in.size()) {
    rest_.clear();
    apply(rest_, clips, t);
    rest_ready_ = true;
  }
  if (tracker_) tracker_->end_tokens();
  return k;
}

// What tick() and finish() give is only ever a broken sequence, which never passes: the tracker
// is shown nothing.
void Firewall::tick(uint64_t now_ms, std::string& out, std::vector<Osc52>& clips) {
  toks_.clear();
  lexer_.tick(now_ms, toks_);
  apply(out, clips, 0);
}

void Firewall::finish(std::string& out, std::vector<Osc52>& clips) {
  toks_.clear();
  lexer_.finish(toks_);
  apply(out, clips, 0);
}

}  // namespace blaude::term
