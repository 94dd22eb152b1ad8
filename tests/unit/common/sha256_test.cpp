// SHA-256 against the FIPS 180-2 test vectors, one-shot and streamed in uneven pieces.
#include <string>

#include "catch.hpp"
#include "common/sha256.hpp"

using blaude::Sha256;
using blaude::sha256_hex;

TEST_CASE("sha256: FIPS 180-2 vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("sha256: streamed in pieces equals one-shot; hex() starts over") {
  Sha256 h;
  const std::string chunk(997, 'a');  // a prime, so pieces straddle the 64-byte blocks
  size_t left = 1000000;
  while (left) {
    size_t n = left < chunk.size() ? left : chunk.size();
    h.update(std::string_view(chunk).substr(0, n));
    left -= n;
  }
  CHECK(h.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  h.update("abc");
  CHECK(h.hex() == sha256_hex("abc"));
}
