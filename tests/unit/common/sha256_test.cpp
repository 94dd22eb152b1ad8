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

// Lengths around the padding's edges (55: length fits the block; 56-63: it needs a second block;
// 64, 119-128: whole blocks), each fed whole and one byte at a time. Expected values: Python's
// hashlib (OpenSSL) over the same bytes, (i * 7 + 3) mod 256.
TEST_CASE("sha256: the padding's edge lengths, whole and byte by byte") {
  const std::pair<size_t, const char*> cases[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
  };
  for (const auto& [n, want] : cases) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>((i * 7 + 3) & 255);
    INFO("length " << n);
    CHECK(sha256_hex(s) == want);
    Sha256 h;
    for (char c : s) h.update(std::string_view(&c, 1));
    CHECK(h.hex() == want);
  }
}
