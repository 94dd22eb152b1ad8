// The ssh-agent protocol (draft-miller-ssh-agent) as the broker's agent service reads it: a
// uint32 length, a type byte and its fields. Pure and strict: a length past kMaxMessage, a field
// that runs past its message, bytes left over after the last field, a count past its bound: the
// message is malformed, and the caller closes the connection. No recursion, nothing unbounded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/frame.hpp"

namespace blaude::broker::agent {

// ssh-agent itself caps a message at 256 KiB (AGENT_MAX_LEN).
inline constexpr uint32_t kMaxMessage = 256 * 1024;
inline constexpr uint32_t kMaxIdentities = 1024;

enum Type : uint8_t {
  kFailure = 5,
  kSuccess = 6,
  kRequestIdentities = 11,
  kIdentitiesAnswer = 12,
  kSignRequest = 13,
  kSignResponse = 14,
  kAddIdentity = 17,
  kRemoveIdentity = 18,
  kRemoveAllIdentities = 19,
  kAddSmartcardKey = 20,
  kRemoveSmartcardKey = 21,
  kLock = 22,
  kUnlock = 23,
  kAddIdConstrained = 25,
  kAddSmartcardKeyConstrained = 26,
  kExtension = 27,
};
// The request's name for logs and the summary ("sign", "add-identity", "type 99").
std::string type_name(uint8_t type);

// One message out of a stream, at most kMaxMessage bytes long.
std::variant<Frame, NeedMore, Malformed> next_frame(std::string_view stream);

// A request from a client, its fields as far as a decision needs them. Requests the agent
// service refuses whatever they hold (add, lock, smartcards) are checked for framing only.
struct Request {
  uint8_t type = 0;
  std::string key_blob;   // sign, remove-identity
  std::string data;       // sign: what is to be signed
  uint32_t flags = 0;     // sign
  std::string extension;  // extension: its name
  std::string host_key;   // session-bind@openssh.com: the server's host key blob
};
std::variant<Request, Malformed> parse_request(std::string_view body);

struct Identity {
  std::string blob, comment;
};
// The upstream agent's IDENTITIES_ANSWER, strictly.
std::variant<std::vector<Identity>, Malformed> parse_identities(std::string_view body);
std::string identities_answer(const std::vector<Identity>& ids);

// What a signature is over, for the summary: an ssh user authentication (the user name, and
// the server's host key when the request is host-bound) or a file signature (ssh-keygen -Y
// sign, git's gpg.format=ssh: its namespace). nullopt for anything else.
struct SignedFor {
  std::string user;       // userauth: the user name
  std::string host_key;   // userauth, host-bound form: the server's host key blob
  std::string sig_namespace;  // SSHSIG: "git", "file", ...
};
std::optional<SignedFor> signed_for(std::string_view data);

// OpenSSH's fingerprint of a key blob: "SHA256:" and the unpadded base64 of its SHA-256.
std::string fingerprint(std::string_view blob);
// The key type a blob names ("ssh-ed25519"), "" when it has none.
std::string key_type(std::string_view blob);

std::string base64_encode(std::string_view bytes, bool pad);
// Strict standard base64 (padding optional); nullopt on any other byte.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace blaude::broker::agent
