// The signing-only agent's parser and decision table: what passes to the real agent, what is
// refused, what closes the connection.
#include <string>
#include <vector>

#include "broker/agent_policy.hpp"
#include "broker/agent_proto.hpp"
#include "catch.hpp"

using namespace blaude::broker;
using namespace blaude::broker::agent;

namespace {

std::string u32(uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
std::string str(const std::string& s) { return u32(uint32_t(s.size())) + s; }
std::string blob(const std::string& type, const std::string& key) { return str(type) + str(key); }

const std::string kA = blob("ssh-ed25519", std::string(32, 'a'));
const std::string kB = blob("ssh-ed25519", std::string(32, 'b'));

AgentPolicy allow_a() {
  AgentPolicy p;
  p.keys.push_back({fingerprint(kA), "", "test"});
  return p;
}

Request req(const std::string& body) { return std::get<Request>(parse_request(body)); }

}  // namespace

TEST_CASE("agent: fingerprints are OpenSSH's", "[broker]") {
  // ssh-keygen -lf of the public key "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG..." (all-zero key).
  const std::string zero = blob("ssh-ed25519", std::string(32, '\0'));
  auto fp = fingerprint(zero);
  CHECK(fp.starts_with("SHA256:"));
  CHECK(fp.size() == 7 + 43);
  auto rule = key_rule_from_public_key("ssh-ed25519 " + base64_encode(zero, true) + " me@host", "t");
  REQUIRE(std::holds_alternative<KeyRule>(rule));
  CHECK(std::get<KeyRule>(rule).fingerprint == fp);
  CHECK(std::holds_alternative<KeyRule>(key_rule_from_public_key("key::ssh-ed25519 " + base64_encode(zero, true), "t")));
  CHECK(std::holds_alternative<std::string>(key_rule_from_public_key("ssh-rsa " + base64_encode(zero, true), "t")));
  CHECK(std::holds_alternative<std::string>(key_rule_from_public_key("ssh-ed25519 !!!", "t")));
}

TEST_CASE("agent: base64 round trips and refuses other bytes", "[broker]") {
  for (std::string s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
    CHECK(base64_decode(base64_encode(s, true)) == s);
    CHECK(base64_decode(base64_encode(s, false)) == s);
  }
  CHECK_FALSE(base64_decode("ab$c"));
  CHECK_FALSE(base64_decode("a"));
}

TEST_CASE("agent: key rules from the command line and the policy", "[broker]") {
  const std::string fp = fingerprint(kA);
  CHECK(std::get<KeyRule>(parse_key_rule(fp, "x")).fingerprint == fp);
  CHECK(std::get<KeyRule>(parse_key_rule("me@laptop", "x")).comment == "me@laptop");
  CHECK(std::holds_alternative<std::string>(parse_key_rule("SHA256:short", "x")));
  CHECK(std::holds_alternative<std::string>(parse_key_rule("MD5:aa:bb", "x")));
  CHECK(std::holds_alternative<std::string>(parse_key_rule("", "x")));
  CHECK(std::holds_alternative<std::string>(parse_key_rule("a\x1b[2Jb", "x")));
}

TEST_CASE("agent: framing is bounded", "[broker]") {
  CHECK(std::holds_alternative<NeedMore>(next_frame("")));
  CHECK(std::holds_alternative<NeedMore>(next_frame(u32(5) + "ab")));
  CHECK(std::holds_alternative<Malformed>(next_frame(u32(0))));
  CHECK(std::holds_alternative<Malformed>(next_frame(u32(kMaxMessage + 1))));
  const std::string stream = u32(1) + "\x0b" + "rest";
  auto f = next_frame(stream);
  REQUIRE(std::holds_alternative<Frame>(f));
  CHECK(std::get<Frame>(f).consumed == 5);
  CHECK(std::get<Frame>(f).body == "\x0b");
}

TEST_CASE("agent: requests parse strictly", "[broker]") {
  CHECK(req("\x0b").type == kRequestIdentities);
  CHECK(std::holds_alternative<Malformed>(parse_request(std::string("\x0b", 1) + "x")));  // trailing bytes
  const std::string sign = std::string(1, char(kSignRequest)) + str(kA) + str("data") + u32(0);
  CHECK(req(sign).key_blob == kA);
  CHECK(req(sign).data == "data");
  CHECK(std::holds_alternative<Malformed>(parse_request(sign.substr(0, sign.size() - 1))));
  CHECK(std::holds_alternative<Malformed>(parse_request(sign + "x")));
  // A string whose length runs past the message.
  CHECK(std::holds_alternative<Malformed>(parse_request(std::string(1, char(kSignRequest)) + u32(1000) + "x")));
  const std::string bind = std::string(1, char(kExtension)) + str("session-bind@openssh.com") + str(kB) + str("sid") +
                           str("sig") + std::string(1, '\0');
  CHECK(req(bind).host_key == kB);
  CHECK(std::holds_alternative<Malformed>(parse_request(bind + "x")));
  CHECK(std::holds_alternative<Malformed>(parse_request(bind.substr(0, bind.size() - 1) + "\x02")));
  CHECK(std::holds_alternative<Malformed>(parse_request(std::string(1, char(kExtension)) + str(""))));
  CHECK(std::holds_alternative<Malformed>(parse_request("")));
}

TEST_CASE("agent: the decision table", "[broker]") {
  const AgentPolicy p = allow_a();
  auto sign = [](const std::string& key) { return std::string(1, char(kSignRequest)) + str(key) + str("d") + u32(0); };
  CHECK(decide(p, req("\x0b")).verdict == Verdict::ListFiltered);
  CHECK(decide(p, req(sign(kA))).verdict == Verdict::Forward);
  auto b = decide(p, req(sign(kB)));
  CHECK(b.verdict == Verdict::Refuse);
  CHECK(b.what == "refused sign with " + fingerprint(kB) + " (not an allowed key)");
  CHECK(decide(p, req(std::string(1, char(kExtension)) + str("session-bind@openssh.com") + str(kB) + str("") + str("") +
                      std::string(1, '\1')))
            .verdict == Verdict::Forward);
  CHECK(decide(p, req(std::string(1, char(kExtension)) + str("query"))).verdict == Verdict::Refuse);
  CHECK(decide(p, req(std::string(1, char(kExtension)) + str("restrict-destination-v00@openssh.com") + "xx")).verdict ==
        Verdict::Refuse);
  for (uint8_t t : std::vector<uint8_t>{kAddIdentity, kRemoveIdentity, kRemoveAllIdentities, kAddSmartcardKey, kRemoveSmartcardKey, kLock,
                    kUnlock, kAddIdConstrained, kAddSmartcardKeyConstrained, uint8_t(99)}) {
    std::string body(1, char(t));
    if (t == kRemoveIdentity) body += str(kA);  // even the allowed key cannot be removed
    if (t == kLock || t == kUnlock) body += str("pw");
    auto parsed = parse_request(body);
    REQUIRE(std::holds_alternative<Request>(parsed));
    CHECK(decide(p, std::get<Request>(parsed)).verdict == Verdict::Refuse);
  }
}

TEST_CASE("agent: keys allowed by comment need the agent's list", "[broker]") {
  AgentPolicy p;
  p.keys.push_back({"", "work", "test"});
  const std::string sign = std::string(1, char(kSignRequest)) + str(kA) + str("d") + u32(0);
  CHECK(decide(p, req(sign)).verdict == Verdict::NeedIdentities);
  std::vector<Identity> listed{{kA, "work"}, {kB, "home"}};
  CHECK(decide(p, req(sign), &listed).verdict == Verdict::Forward);
  listed[0].comment = "other";
  CHECK(decide(p, req(sign), &listed).verdict == Verdict::Refuse);
}

TEST_CASE("agent: identities answers parse strictly and round trip", "[broker]") {
  std::vector<Identity> ids{{kA, "a"}, {kB, "b"}};
  auto body = identities_answer(ids);
  auto back = parse_identities(body);
  REQUIRE(std::holds_alternative<std::vector<Identity>>(back));
  CHECK(std::get<std::vector<Identity>>(back).size() == 2);
  CHECK(std::holds_alternative<Malformed>(parse_identities(body + "x")));
  CHECK(std::holds_alternative<Malformed>(parse_identities(body.substr(0, body.size() - 1))));
  CHECK(std::holds_alternative<Malformed>(parse_identities(std::string(1, char(kIdentitiesAnswer)) + u32(kMaxIdentities + 1))));
}

TEST_CASE("agent: what a signature is for", "[broker]") {
  auto sshsig = signed_for("SSHSIG" + str("git") + str("") + str("sha512") + str("h"));
  REQUIRE(sshsig);
  CHECK(sshsig->sig_namespace == "git");
  const std::string auth = str("sid") + std::string(1, char(50)) + str("git") + str("ssh-connection") + str("publickey") +
                           std::string(1, '\1') + str("ssh-ed25519") + str(kA);
  auto a = signed_for(auth);
  REQUIRE(a);
  CHECK(a->user == "git");
  CHECK(a->host_key.empty());
  const std::string bound = str("sid") + std::string(1, char(50)) + str("me") + str("ssh-connection") +
                            str("publickey-hostbound-v00@openssh.com") + std::string(1, '\1') + str("ssh-ed25519") +
                            str(kA) + str(kB);
  auto h = signed_for(bound);
  REQUIRE(h);
  CHECK(h->host_key == kB);
  CHECK_FALSE(signed_for("random bytes"));
}
