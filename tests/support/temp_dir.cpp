#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace mote::test {

ScopedTempDir::ScopedTempDir(const std::string& tag) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("mote-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "cannot create a temporary directory from " << pattern;
    return;
  }
  path_ = pattern;
}

ScopedTempDir::~ScopedTempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  // Not ADD_FAILURE: process_temp_dir() is destroyed after the tests ended.
  if (ec) std::fprintf(stderr, "cannot remove %s: %s\n", path_.c_str(), ec.message().c_str());
}

const ScopedTempDir& process_temp_dir() {
  static const ScopedTempDir dir("process");
  return dir;
}

}  // namespace mote::test
