// A fresh directory under /tmp for one test case, removed with everything in it afterwards.
// `path` is canonical (no symlink on the way), as the code under test resolves what it probes.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "catch.hpp"

namespace blaude::testing {

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& name = "blaude-unit") {
    std::string t = "/tmp/" + name + ".XXXXXX";
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = std::filesystem::canonical(t).string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace blaude::testing
