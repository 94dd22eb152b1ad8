// The agent service's decision table: which requests from inside pass to the user's real agent,
// and with which keys. Pure. The identities list and signatures pass for the keys the policy
// names; add, remove, lock, unlock, smartcards and every extension but session-bind are refused
// (SSH_AGENT_FAILURE), whatever key they name.
#pragma once
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/agent_proto.hpp"

namespace blaude::broker::agent {

// A key the sandbox may use: by fingerprint ("SHA256:..."), or by the comment the agent lists
// it with. `origin` says who named it (--ssh-key, a policy line, git's user.signingkey).
struct KeyRule {
  std::string fingerprint;
  std::string comment;
  std::string origin;
};

// A --ssh-key value or policy argument: "SHA256:" and 43 base64 digits, or a comment (one line
// of visible text). The rule, or why the value is not one.
std::variant<KeyRule, std::string> parse_key_rule(std::string_view text, const std::string& origin);

// A public key line ("ssh-ed25519 AAAA... comment", or git's "key::ssh-ed25519 AAAA..."): the
// rule naming its fingerprint, or why it is not one.
std::variant<KeyRule, std::string> key_rule_from_public_key(std::string_view line, const std::string& origin);

struct AgentPolicy {
  std::vector<KeyRule> keys;
  bool allows(std::string_view blob, std::string_view comment) const;
  bool names_comments() const;
};

enum class Verdict {
  ListFiltered,    // ask the real agent for its identities, answer with the allowed ones only
  Forward,         // pass the request to the real agent and its answer back
  NeedIdentities,  // sign with a key allowed only by comment: decide again with the agent's list
  Refuse,          // answer SSH_AGENT_FAILURE
};
struct Decision {
  Verdict verdict = Verdict::Refuse;
  std::string what;  // for the log and the summary: "sign with SHA256:...", "refused add-identity"
};

// `listed`: the real agent's identities when the decision needs them (NeedIdentities), else null.
Decision decide(const AgentPolicy& p, const Request& r, const std::vector<Identity>* listed = nullptr);

}  // namespace blaude::broker::agent
