// libFuzzer target for the terminal firewall and the lexer under it. The first input byte picks
// the clipboard mode and seeds the read sizes; the rest is the child's output. Invariants:
//  - the output is the same fed whole, cut in two, byte by byte, and through pass() + feed() of
//    the rest in reads of varying sizes (as the session drives it);
//  - it holds no sequence the table drops: lexed again, no token is dropped, and the firewall
//    over its own output changes nothing;
//  - the text between sequences comes out unchanged: the text (and the passed controls) of the
//    input, in order, are exactly the text of the output;
//  - the terminal state tracker shown the tokens that pass (with the lexer's windows) ends in
//    the same state however the input was read, and in the state of a tracker fed the output's
//    bytes (its own state machine): same modes, colours, title and undo.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "term/emit.hpp"
#include "term/firewall.hpp"
#include "term/tracker.hpp"

using namespace blaude::term;

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

LexerLimits limits() {
  LexerLimits l;
  l.max_control = 64;  // small, so that the over-long path is reached often (and no smaller
  l.max_string = 200;  // than a window of term/skim.hpp, which the fast path then uses)
  return l;
}

void require_same(const Tracker& a, const Tracker& b) {
  require(a.state() == b.state());
  require(a.colours() == b.colours());
  require(a.title().set == b.title().set && a.title().code == b.title().code &&
          a.title().view() == b.title().view());
  require(undo(a) == undo(b));
}

std::string run(std::string_view in, ClipboardMode mode, size_t step, Tracker* shown = nullptr) {
  Firewall f(mode, limits());
  f.show_to(shown);
  std::string out;
  std::vector<Osc52> clips;
  for (size_t i = 0; i < in.size(); i += step) f.feed(in.substr(i, step), 0, out, clips);
  f.finish(out, clips);
  require(f.idle());
  return out;
}

// Text and the controls that pass, in order.
std::string text_of(std::string_view in) {
  Lexer lx(limits());
  std::vector<Token> toks;
  lx.feed(in, 0, toks);
  lx.finish(toks);
  std::string r;
  for (const Token& t : toks)
    if (t.kind == Tok::Text || (t.kind == Tok::Control && judge(t).verdict == Verdict::Pass)) r.append(t.bytes);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  unsigned seed = data[0];
  const ClipboardMode mode = seed & 1 ? ClipboardMode::PassWrites : ClipboardMode::Intercept;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);

  Tracker shown_whole;
  const std::string whole = run(in, mode, in.size() ? in.size() : 1, &shown_whole);
  Tracker fed_output;
  fed_output.feed(whole);
  require_same(shown_whole, fed_output);
  const size_t cut = in.empty() ? 0 : seed % in.size();
  {
    Firewall f(mode, limits());
    Tracker shown;
    f.show_to(&shown);
    std::string out;
    std::vector<Osc52> clips;
    f.feed(in.substr(0, cut), 0, out, clips);
    f.feed(in.substr(cut), 0, out, clips);
    f.finish(out, clips);
    require(out == whole);
    require_same(shown, shown_whole);
  }
  {
    Tracker shown;
    require(run(in, mode, 1, &shown) == whole);
    require_same(shown, shown_whole);
  }
  {
    Firewall f(mode, limits());
    Tracker shown;
    f.show_to(&shown);
    std::string out;
    std::vector<Osc52> clips;
    for (size_t i = 0; i < in.size();) {
      seed = seed * 1103515245u + 12345u;
      std::string_view read = in.substr(i, 1 + (seed >> 16) % 23);
      i += read.size();
      size_t k = f.pass(read, 0, clips);
      require(k <= read.size());
      out.append(read.substr(0, k));
      if (k < read.size()) f.feed(read.substr(k), 0, out, clips);
    }
    f.finish(out, clips);
    require(out == whole);
    require_same(shown, shown_whole);
  }

  // Nothing the table drops is left in the output.
  Lexer lx(limits());
  std::vector<Token> toks;
  lx.feed(whole, 0, toks);
  lx.finish(toks);
  for (const Token& t : toks) {
    const Judgement j = judge(t);
    require(j.verdict != Verdict::Drop);
    if (j.verdict == Verdict::Clipboard) {
      const Osc52 c = osc52_of(t);
      require(mode == ClipboardMode::PassWrites && c.has_data && !c.read_request);
    }
  }
  require(run(whole, mode, whole.size() ? whole.size() : 1) == whole);
  require(text_of(whole) == text_of(in));
  return 0;
}
