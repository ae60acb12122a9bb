// A fresh directory under the system's temporary directory ($TMPDIR, else
// /tmp), removed with everything in it when the test ends: every test that
// writes files writes them here, so the suite leaves nothing behind (CI checks).
#pragma once

#include <string>

namespace mote::test {

class ScopedTempDir {
 public:
  // `tag` goes into the directory's name, to tell which test made it.
  explicit ScopedTempDir(const std::string& tag = "test");
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// One ScopedTempDir for the whole test process, made on first use and removed
// at exit: for helpers that save models from many tests. CTest runs each
// discovered test case as its own process, so there it is per test too.
const ScopedTempDir& process_temp_dir();

}  // namespace mote::test
