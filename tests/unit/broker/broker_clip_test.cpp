#include <string>

#include "broker/clip_service.hpp"
#include "catch.hpp"
#include "common/clip_wire.hpp"

using namespace blaude;
using namespace blaude::broker::clipboard;

namespace {
clip::Request req(clip::Op op, std::string type = "", std::string data = "") {
  clip::Request r;
  r.op = op;
  r.type = std::move(type);
  r.data = std::move(data);
  return r;
}
const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + "rest";
}  // namespace

TEST_CASE("clip wire: requests parse strictly and round-trip", "[broker][clip]") {
  std::string why;
  auto r = clip::parse_request(clip::encode(req(clip::Op::Copy, "image/png", kPng)), why);
  REQUIRE(r);
  CHECK(r->type == "image/png");
  CHECK(r->data == kPng);
  CHECK(clip::parse_request(std::string("pc\0", 3), why));
  // Too short, unknown op or selection, type past the body or over its bound, bad characters,
  // data after a read, a text copy over its bound.
  CHECK_FALSE(clip::parse_request("pc", why));
  CHECK_FALSE(clip::parse_request(std::string("xc\0", 3), why));
  CHECK_FALSE(clip::parse_request(std::string("ps\0", 3), why));
  CHECK_FALSE(clip::parse_request(std::string("pc\5abc", 6), why));
  CHECK_FALSE(clip::parse_request("pc" + std::string(1, char(65)) + std::string(65, 'a'), why));
  CHECK_FALSE(clip::parse_request(std::string("pc\3a\nb", 6), why));
  CHECK_FALSE(clip::parse_request(std::string("pc\0x", 4), why));
  CHECK_FALSE(clip::parse_request(std::string("tc\0x", 4), why));
  CHECK(clip::parse_request(std::string("cc\0", 3) + std::string(clip::kMaxText, 'x'), why));
  CHECK_FALSE(clip::parse_request(std::string("cc\0", 3) + std::string(clip::kMaxText + 1, 'x'), why));
  CHECK(why.find("more data") != std::string::npos);
  // Replies: a refusal is one printable line.
  CHECK(clip::parse_reply(std::string("\0data\n\x01", 7)));
  CHECK(clip::parse_reply("\1refused: why"));
  CHECK_FALSE(clip::parse_reply("\1bad\x1b[31m"));
  CHECK_FALSE(clip::parse_reply(""));
  CHECK_FALSE(clip::parse_reply("\2x"));
}

TEST_CASE("clip kinds", "[broker][clip]") {
  CHECK(clip::kind_of("") == clip::Kind::Text);
  CHECK(clip::kind_of("UTF8_STRING") == clip::Kind::Text);
  CHECK(clip::kind_of("text/plain;charset=utf-8") == clip::Kind::Text);
  CHECK(clip::kind_of("image/png") == clip::Kind::Png);
  CHECK(clip::kind_of("image/jpeg") == clip::Kind::Other);
  CHECK(clip::looks_like_png(kPng));
  CHECK_FALSE(clip::looks_like_png("GIF89a"));
}

TEST_CASE("paste keys: Ctrl+V or a bracketed paste's start, also split across reads", "[broker][clip]") {
  PasteKeys k;
  CHECK_FALSE(k.feed("hello"));
  CHECK(k.feed("\x16"));
  CHECK(k.feed("ab\x1b[200~text\x1b[201~"));
  CHECK_FALSE(k.feed("\x1b[2"));
  CHECK(k.feed("00~"));
  CHECK_FALSE(k.feed("\x1b[201~"));
  CHECK_FALSE(k.feed("\x1b[20"));
  CHECK_FALSE(k.feed("1~"));
  CHECK_FALSE(k.feed("\x1b\x1b[20"));  // an ESC restarts the match
  CHECK(k.feed("0~"));
}

TEST_CASE("paste gate: one read per window, the type list while it is open", "[broker][clip]") {
  PasteGate g(2000);
  CHECK_FALSE(g.is_open(100));
  CHECK_FALSE(g.take_read(100));
  g.open(1000);
  CHECK(g.is_open(1000));
  CHECK(g.is_open(3000));
  CHECK_FALSE(g.is_open(3001));
  CHECK(g.take_read(2500));
  CHECK_FALSE(g.take_read(2600));  // one read
  CHECK_FALSE(g.is_open(2600));
  g.open(5000);
  CHECK_FALSE(g.take_read(7001));  // after the window
  CHECK_FALSE(g.take_read(4999));  // before it (a clock that went back)
}

TEST_CASE("clip decision table", "[broker][clip]") {
  ClipConfig c;
  c.gate = std::make_shared<PasteGate>(2000);
  SECTION("copies") {
    CHECK(decide(req(clip::Op::Copy, "", "x"), c, 1).allow);
    CHECK(decide(req(clip::Op::Copy, "image/png", kPng), c, 1).allow);
    CHECK_FALSE(decide(req(clip::Op::Copy, "image/png", "not a png"), c, 1).allow);
    CHECK_FALSE(decide(req(clip::Op::Copy, "image/jpeg", "x"), c, 1).allow);
    CHECK_FALSE(decide(req(clip::Op::Copy, "", ""), c, 1).allow);
    c.copy_off = "blaude runs with --no-clipboard";
    Decision d = decide(req(clip::Op::Copy, "", "x"), c, 1);
    CHECK_FALSE(d.allow);
    CHECK(d.why.find("--no-clipboard") != std::string::npos);
  }
  SECTION("reads need the window") {
    CHECK_FALSE(decide(req(clip::Op::Paste), c, 100).allow);
    CHECK_FALSE(decide(req(clip::Op::Types), c, 100).allow);
    c.gate->open(1000);
    CHECK(decide(req(clip::Op::Types), c, 1100).allow);
    CHECK(decide(req(clip::Op::Types), c, 1200).allow);
    CHECK(decide(req(clip::Op::Paste, "image/png"), c, 1300).allow);
    CHECK_FALSE(decide(req(clip::Op::Paste, "image/png"), c, 1400).allow);
    CHECK_FALSE(decide(req(clip::Op::Types), c, 1400).allow);
    c.gate->open(2000);
    CHECK_FALSE(decide(req(clip::Op::Paste, "image/jpeg"), c, 2100).allow);  // and the window stays
    CHECK(decide(req(clip::Op::Paste), c, 2200).allow);
  }
  SECTION("pipes mode: no gate, no read") {
    c.gate.reset();
    Decision d = decide(req(clip::Op::Paste), c, 1);
    CHECK_FALSE(d.allow);
    CHECK(d.why.find("pipes mode") != std::string::npos);
  }
  SECTION("policy: off refuses even in the window; text allows text reads always, not images") {
    c.gate->open(1000);
    c.paste = PastePolicy::Off;
    c.paste_origin = "policy:3";
    Decision d = decide(req(clip::Op::Paste), c, 1100);
    CHECK_FALSE(d.allow);
    CHECK(d.why.find("policy:3") != std::string::npos);
    c.paste = PastePolicy::TextAlways;
    c.gate = std::make_shared<PasteGate>(2000);
    CHECK(decide(req(clip::Op::Paste), c, 50).allow);
    CHECK(decide(req(clip::Op::Paste), c, 60).allow);
    CHECK_FALSE(decide(req(clip::Op::Paste, "image/png"), c, 70).allow);
  }
}
