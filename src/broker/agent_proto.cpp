#include "broker/agent_proto.hpp"

#include "common/sha256.hpp"

namespace blaude::broker::agent {

namespace {

// Fields read front to back; any read past the end sets `bad` and yields nothing.
struct Reader {
  std::string_view in;
  bool bad = false;
  bool done() const { return !bad && in.empty(); }
  std::optional<uint32_t> u32() {
    if (bad || in.size() < 4) return fail<uint32_t>();
    uint32_t v = (uint32_t(uint8_t(in[0])) << 24) | (uint32_t(uint8_t(in[1])) << 16) |
                 (uint32_t(uint8_t(in[2])) << 8) | uint32_t(uint8_t(in[3]));
    in.remove_prefix(4);
    return v;
  }
  std::optional<uint8_t> byte() {
    if (bad || in.empty()) return fail<uint8_t>();
    uint8_t v = uint8_t(in[0]);
    in.remove_prefix(1);
    return v;
  }
  std::optional<std::string_view> str() {
    auto n = u32();
    if (!n || *n > in.size()) return fail<std::string_view>();
    std::string_view v = in.substr(0, *n);
    in.remove_prefix(*n);
    return v;
  }
  template <class T>
  std::optional<T> fail() {
    bad = true;
    return std::nullopt;
  }
};

void put_u32(std::string& out, uint32_t v) {
  out.push_back(char(v >> 24));
  out.push_back(char(v >> 16));
  out.push_back(char(v >> 8));
  out.push_back(char(v));
}

void put_str(std::string& out, std::string_view s) {
  put_u32(out, uint32_t(s.size()));
  out.append(s);
}

Malformed bad(std::string why) { return Malformed{std::move(why)}; }

}  // namespace

std::string type_name(uint8_t t) {
  switch (t) {
    case 1: return "list-rsa1-identities (protocol 1)";
    case 9: return "remove-all-rsa1-identities (protocol 1)";
    case kRequestIdentities: return "list-identities";
    case kSignRequest: return "sign";
    case kAddIdentity: return "add-identity";
    case kRemoveIdentity: return "remove-identity";
    case kRemoveAllIdentities: return "remove-all-identities";
    case kAddSmartcardKey: return "add-smartcard-key";
    case kRemoveSmartcardKey: return "remove-smartcard-key";
    case kLock: return "lock";
    case kUnlock: return "unlock";
    case kAddIdConstrained: return "add-identity-constrained";
    case kAddSmartcardKeyConstrained: return "add-smartcard-key-constrained";
    case kExtension: return "extension";
    default: return "type " + std::to_string(t);
  }
}

std::variant<Frame, NeedMore, Malformed> next_frame(std::string_view s) { return broker::next_frame(s, kMaxMessage); }

std::variant<Request, Malformed> parse_request(std::string_view body) {
  Reader r{body};
  Request q;
  auto t = r.byte();
  if (!t) return bad("no type");
  q.type = *t;
  switch (q.type) {
    case kRequestIdentities:
    case kRemoveAllIdentities:
      break;
    case kSignRequest: {
      auto blob = r.str();
      auto data = r.str();
      auto flags = r.u32();
      if (r.bad) return bad("a sign request cut short");
      q.key_blob = *blob;
      q.data = *data;
      q.flags = *flags;
      break;
    }
    case kRemoveIdentity: {
      auto blob = r.str();
      if (r.bad) return bad("a remove request cut short");
      q.key_blob = *blob;
      break;
    }
    case kLock:
    case kUnlock:
      if (!r.str()) return bad("a lock request cut short");
      break;
    case kExtension: {
      auto name = r.str();
      if (!name || name->empty() || name->size() > 256) return bad("an extension without a valid name");
      q.extension = *name;
      if (q.extension != "session-bind@openssh.com") return q;  // refused whatever it holds
      auto host_key = r.str();
      auto session_id = r.str();
      auto signature = r.str();
      auto forwarding = r.byte();
      if (r.bad) return bad("a session-bind cut short");
      if (*forwarding > 1) return bad("a session-bind with a bad flag");
      (void)session_id;
      (void)signature;
      q.host_key = *host_key;
      break;
    }
    default:
      // Add, smartcard and unknown requests: refused whatever they hold, never read further.
      return q;
  }
  if (!r.done()) return bad("bytes after the last field of a " + type_name(q.type) + " request");
  return q;
}

std::variant<std::vector<Identity>, Malformed> parse_identities(std::string_view body) {
  Reader r{body};
  auto t = r.byte();
  if (!t || *t != kIdentitiesAnswer) return bad("not an identities answer");
  auto n = r.u32();
  if (!n || *n > kMaxIdentities) return bad("an identities answer with a bad count");
  std::vector<Identity> out;
  for (uint32_t i = 0; i < *n; ++i) {
    auto blob = r.str();
    auto comment = r.str();
    if (r.bad) return bad("an identities answer cut short");
    out.push_back({std::string(*blob), std::string(*comment)});
  }
  if (!r.done()) return bad("bytes after the identities");
  return out;
}

std::string identities_answer(const std::vector<Identity>& ids) {
  std::string out(1, char(kIdentitiesAnswer));
  put_u32(out, uint32_t(ids.size()));
  for (const auto& id : ids) {
    put_str(out, id.blob);
    put_str(out, id.comment);
  }
  return out;
}

std::optional<SignedFor> signed_for(std::string_view data) {
  SignedFor f;
  if (data.starts_with("SSHSIG")) {
    Reader r{data.substr(6)};
    auto ns = r.str();
    if (r.bad) return std::nullopt;
    f.sig_namespace = *ns;
    return f;
  }
  // RFC 4252 section 7: session id, SSH_MSG_USERAUTH_REQUEST (50), user, service, "publickey",
  // TRUE, algorithm, key; the host-bound form (OpenSSH's publickey-hostbound-v00) adds the host key.
  Reader r{data};
  r.str();
  auto msg = r.byte();
  auto user = r.str();
  r.str();
  auto method = r.str();
  if (r.bad || *msg != 50) return std::nullopt;
  f.user = *user;
  if (*method == "publickey-hostbound-v00@openssh.com") {
    r.byte();
    r.str();
    r.str();
    if (auto hk = r.str(); hk && !r.bad) f.host_key = *hk;
  }
  return f;
}

std::string base64_encode(std::string_view in, bool pad) {
  static constexpr char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(k[(v >> s) & 63]);
  }
  if (size_t rest = in.size() - i; rest > 0) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out.push_back(k[(v >> 18) & 63]);
    out.push_back(k[(v >> 12) & 63]);
    if (rest == 2) out.push_back(k[(v >> 6) & 63]);
    if (pad) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else return std::nullopt;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(char((acc >> bits) & 0xff));
    }
  }
  if (bits >= 6) return std::nullopt;  // one base64 digit alone encodes no byte
  return out;
}

std::string fingerprint(std::string_view blob) {
  const std::string hex = sha256_hex(blob);
  std::string raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) raw.push_back(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return "SHA256:" + base64_encode(raw, false);
}

std::string key_type(std::string_view blob) {
  Reader r{blob};
  auto t = r.str();
  return r.bad ? "" : std::string(*t);
}

}  // namespace blaude::broker::agent
