#include "broker/agent_policy.hpp"

#include "common/shown.hpp"

namespace blaude::broker::agent {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::variant<KeyRule, std::string> parse_key_rule(std::string_view text, const std::string& origin) {
  text = trim(text);
  if (text.empty()) return std::string("an empty key name (give a fingerprint SHA256:... or the key's comment)");
  if (text.size() > 256) return std::string("a key name longer than 256 bytes");
  if (!shows_as_is(text)) return std::string("a key name with control or invisible characters");
  if (text.starts_with("SHA256:")) {
    auto raw = base64_decode(text.substr(7));
    if (!raw || raw->size() != 32 || text.size() != 7 + 43)
      return "'" + std::string(text) + "' is not a SHA256 fingerprint (ssh-add -l prints them: SHA256: and 43 characters)";
    return KeyRule{std::string(text), "", origin};
  }
  if (text.starts_with("MD5:")) return std::string("MD5 fingerprints are not accepted; use the SHA256 one (ssh-add -l)");
  return KeyRule{"", std::string(text), origin};
}

std::variant<KeyRule, std::string> key_rule_from_public_key(std::string_view line, const std::string& origin) {
  line = trim(line);
  if (line.starts_with("key::")) line.remove_prefix(5);
  const size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return std::string("not a public key (TYPE BASE64 [COMMENT])");
  std::string_view type = line.substr(0, sp);
  std::string_view rest = trim(line.substr(sp + 1));
  std::string_view b64 = rest.substr(0, rest.find(' '));
  auto blob = base64_decode(b64);
  if (!blob || blob->empty()) return std::string("not a public key: its key is not base64");
  if (key_type(*blob) != type) return "not a public key: it says " + shown(type) + " but holds another type";
  return KeyRule{fingerprint(*blob), "", origin};
}

bool AgentPolicy::allows(std::string_view blob, std::string_view comment) const {
  const std::string fp = fingerprint(blob);
  for (const auto& k : keys)
    if ((!k.fingerprint.empty() && k.fingerprint == fp) || (!k.comment.empty() && k.comment == comment)) return true;
  return false;
}

bool AgentPolicy::names_comments() const {
  for (const auto& k : keys)
    if (!k.comment.empty()) return true;
  return false;
}

Decision decide(const AgentPolicy& p, const Request& r, const std::vector<Identity>* listed) {
  switch (r.type) {
    case kRequestIdentities:
      return {Verdict::ListFiltered, "list-identities"};
    case kSignRequest: {
      const std::string fp = fingerprint(r.key_blob);
      for (const auto& k : p.keys)
        if (!k.fingerprint.empty() && k.fingerprint == fp) return {Verdict::Forward, "sign with " + fp};
      if (p.names_comments()) {
        if (!listed) return {Verdict::NeedIdentities, "sign with " + fp};
        for (const auto& id : *listed)
          if (id.blob == r.key_blob && p.allows(id.blob, id.comment)) return {Verdict::Forward, "sign with " + fp};
      }
      return {Verdict::Refuse, "refused sign with " + fp + " (not an allowed key)"};
    }
    case kExtension:
      if (r.extension == "session-bind@openssh.com") return {Verdict::Forward, "session-bind"};
      return {Verdict::Refuse, "refused extension " + shown(r.extension)};
    default:
      return {Verdict::Refuse, "refused " + type_name(r.type)};
  }
}

}  // namespace blaude::broker::agent
