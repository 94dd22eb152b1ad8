// SHA-256, one-shot or streamed, as lower-case hex. Our own (sha256.cpp, FIPS 180-4): OpenSSL's
// EVP linked ~3 MB of libcrypto.a (against a budget of <= 6 MB for the binary) and nettle's
// static library runs a CPUID probe at every process start (a trap to the hypervisor in a VM).
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
