#include "common/sha256.hpp"

#include <nettle/sha2.h>

namespace blaude {

struct Sha256::Ctx {
  sha256_ctx c;
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) { sha256_init(&ctx_->c); }
Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  sha256_update(&ctx_->c, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
}

std::string Sha256::hex() {
  uint8_t md[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx_->c, sizeof md, md);  // also re-initialises the context
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof md);
  for (uint8_t b : md) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

}  // namespace blaude
