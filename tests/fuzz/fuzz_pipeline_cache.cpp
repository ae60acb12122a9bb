// Fuzz target: the pipeline-cache file (~/.cache/mote/*.bin), which a crash
// or another program may leave corrupt. Decoding gives the driver's blob only
// when the header names this device and the checksum holds; anything else is
// a miss with a reason, never a crash.
#include <cstdlib>
#include <vector>

#include "runtime/vulkan/pipeline_cache_file.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> file(data, data + size);
  auto blob = mote::vk::decode_pipeline_cache(mote::fuzz::seed_cache_key(), file);
  // A hit hands the driver no more bytes than the file holds.
  if (blob.ok() && blob->size() > size) std::abort();
  return 0;
}
