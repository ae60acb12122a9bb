// The on-disk pipeline cache: a file written by this device is a hit in the
// next process; corrupted, truncated and foreign files are misses that never
// crash and leave pipelines buildable.
#include <filesystem>
#include <fstream>

#include "runtime/vulkan/pipeline_cache_file.hpp"
#include "runtime/vulkan/pipelines.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

namespace fs = std::filesystem;

vk::PipelineCacheKey sample_key() {
  vk::PipelineCacheKey key;
  key.vendor_id = 0x10de;
  key.device_id = 0x2330;
  key.driver_version = 555;
  for (int i = 0; i < 16; ++i) key.uuid[i] = static_cast<uint8_t>(i * 7);
  key.shader_set_hash = 0x1234567890abcdefull;
  return key;
}

TEST(PipelineCacheFile, RoundTrips) {
  std::vector<uint8_t> blob = {1, 2, 3, 4, 5, 250};
  auto decoded = vk::decode_pipeline_cache(sample_key(), vk::encode_pipeline_cache(sample_key(), blob));
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded.value(), blob);
}

TEST(PipelineCacheFile, EveryTruncationIsAMiss) {
  std::vector<uint8_t> file = vk::encode_pipeline_cache(sample_key(), std::vector<uint8_t>(100, 9));
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(vk::decode_pipeline_cache(sample_key(), cut).ok()) << "accepted a file cut to " << n << " bytes";
  }
}

TEST(PipelineCacheFile, EveryFlippedByteIsAMiss) {
  std::vector<uint8_t> file = vk::encode_pipeline_cache(sample_key(), std::vector<uint8_t>(64, 3));
  for (size_t i = 0; i < file.size(); ++i) {
    std::vector<uint8_t> bad = file;
    bad[i] ^= 0x5a;
    EXPECT_FALSE(vk::decode_pipeline_cache(sample_key(), bad).ok()) << "accepted a flip at byte " << i;
  }
}

TEST(PipelineCacheFile, ForeignHeadersAreMisses) {
  std::vector<uint8_t> file = vk::encode_pipeline_cache(sample_key(), {1, 2, 3});
  auto expect_miss = [&](vk::PipelineCacheKey other, const char* what, const char* reason) {
    auto r = vk::decode_pipeline_cache(other, file);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_NE(r.status().message().find(reason), std::string::npos) << r.status().message();
  };
  vk::PipelineCacheKey k = sample_key();
  k.vendor_id = 0x1002;
  expect_miss(k, "vendor", "another device");
  k = sample_key();
  k.device_id += 1;
  expect_miss(k, "device", "another device");
  k = sample_key();
  k.driver_version += 1;
  expect_miss(k, "driver", "another driver");
  k = sample_key();
  k.uuid[5] ^= 1;
  expect_miss(k, "uuid", "pipelineCacheUUID");
  k = sample_key();
  k.shader_set_hash ^= 1;
  expect_miss(k, "shaders", "another build of the shaders");
}

// With the real device: one cache directory per test, populated by building a
// pipeline, then reloaded after dropping every pipeline.
class PipelineCacheOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    MOTE_REQUIRE_VULKAN();
    device_ = vk::Device::get().value();
    dir_ = fs::temp_directory_path() / ("mote-cache-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!device_) return;
    device_->pipelines().reset();
    fs::remove_all(dir_);
  }
  // Builds one pipeline into a cold cache and saves it; returns the file.
  std::string populate() {
    device_->pipelines().reset();
    device_->pipelines().configure_cache(dir_.string());
    EXPECT_EQ(device_->pipelines().stats().loaded_bytes, 0u);
    auto p = device_->pipelines().get({vk::ShaderId::kUnary, false, {64, 1, 1}, {7}});
    EXPECT_TRUE(p.ok()) << p.status().to_string();
    EXPECT_TRUE(device_->pipelines().save_cache().ok());
    return device_->pipelines().stats().path;
  }
  // Drops everything, loads the cache again and builds the same pipeline.
  vk::PipelineCacheStats reload() {
    device_->pipelines().reset();
    device_->pipelines().configure_cache(dir_.string());
    vk::PipelineCacheStats stats = device_->pipelines().stats();
    auto p = device_->pipelines().get({vk::ShaderId::kUnary, false, {64, 1, 1}, {7}});
    EXPECT_TRUE(p.ok()) << "pipeline must still build after a cache miss: " << p.status().to_string();
    return stats;
  }
  vk::Device* device_ = nullptr;
  fs::path dir_;
};

// The line mote-run prints: each outcome in words, with the counts and the
// path, from the stats alone (no device needed).
TEST(PipelineCacheDescription, SaysWhatHappenedInWords) {
  vk::PipelineCacheStats s;
  s.path = "/cache/pipelines.bin";
  s.load_note = "miss: no cache file yet";
  s.driver_bytes = 32;  // the Vulkan header and nothing else: lavapipe
  EXPECT_EQ(vk::describe_pipeline_cache(s, 12),
            "the driver keeps no pipeline cache; every start compiles 12 pipelines");

  s.driver_bytes = 40 * 1024;
  EXPECT_EQ(vk::describe_pipeline_cache(s, 12),
            "cold start (no cache file yet); 12 pipelines compiled and saved to /cache/pipelines.bin (40.0 KiB) for "
            "the next start");

  s.loaded_bytes = 40 * 1024;
  s.load_note = "hit: loaded 40960 bytes from /cache/pipelines.bin";
  std::string warm = vk::describe_pipeline_cache(s, 1);
  EXPECT_EQ(warm.rfind("warm start: 40.0 KiB of compiled pipelines read from /cache/pipelines.bin; 1 pipeline ", 0), 0u)
      << warm;

  vk::PipelineCacheStats none;
  none.load_note = "no cache directory (set MOTE_CACHE_DIR or HOME)";
  EXPECT_EQ(vk::describe_pipeline_cache(none, 3),
            "not kept: no cache directory (set MOTE_CACHE_DIR or HOME); every start compiles 3 pipelines");
}

TEST_F(PipelineCacheOnDevice, WarmStartHits) {
  std::string path = populate();
  ASSERT_TRUE(fs::exists(path)) << path;
  vk::PipelineCacheStats stats = reload();
  EXPECT_GT(stats.loaded_bytes, 0u) << stats.load_note;
  EXPECT_EQ(stats.load_note.rfind("hit", 0), 0u) << stats.load_note;
}

TEST_F(PipelineCacheOnDevice, CorruptedFileIsAMiss) {
  std::string path = populate();
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(path) - 5));
    f.write("XXXXX", 5);
  }
  vk::PipelineCacheStats stats = reload();
  EXPECT_EQ(stats.loaded_bytes, 0u);
  EXPECT_NE(stats.load_note.find("corrupted"), std::string::npos) << stats.load_note;
}

TEST_F(PipelineCacheOnDevice, TruncatedFileIsAMiss) {
  std::string path = populate();
  fs::resize_file(path, fs::file_size(path) / 2);
  vk::PipelineCacheStats stats = reload();
  EXPECT_EQ(stats.loaded_bytes, 0u);
  EXPECT_NE(stats.load_note.find("truncated"), std::string::npos) << stats.load_note;
}

TEST_F(PipelineCacheOnDevice, HeaderFromAnotherDeviceIsAMiss) {
  std::string path = populate();
  auto bytes = vk::read_file_bytes(path);
  ASSERT_TRUE(bytes.ok());
  // Another device's header around some blob, at this device's file name.
  vk::PipelineCacheKey other = sample_key();
  ASSERT_TRUE(vk::write_file_atomically(path, vk::encode_pipeline_cache(other, *bytes)).ok());
  vk::PipelineCacheStats stats = reload();
  EXPECT_EQ(stats.loaded_bytes, 0u);
  EXPECT_NE(stats.load_note.find("another"), std::string::npos) << stats.load_note;
}

TEST_F(PipelineCacheOnDevice, GarbageFileIsAMiss) {
  populate();
  std::string path = device_->pipelines().stats().path;
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "this is not a pipeline cache";
  }
  vk::PipelineCacheStats stats = reload();
  EXPECT_EQ(stats.loaded_bytes, 0u);
}

}  // namespace
}  // namespace mote::test
