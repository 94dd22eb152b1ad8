// SHA-256, one-shot or streamed, as lower-case hex. Backed by nettle's sha2 (GnuTLS's crypto
// library): the digest alone, a few KB in the static binary. OpenSSL's EVP (and, since 3.0, its
// one-shot SHA256()) goes through the provider machinery and links ~3 MB of libcrypto.a, half of
// the release binary's size budget (issue 14: <= 6 MB).
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace blaude {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  // The digest of everything fed so far, as 64 hex digits; the object starts over afterwards.
  std::string hex();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace blaude
