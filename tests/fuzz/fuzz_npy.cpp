// Fuzz target: the .npy reader of the tools (mote-run --input, the training
// examples): any bytes give a tensor whose size matches its header, or an error.
#include <cstdlib>

#include "sdk/tools/common/npy.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto tensor = mote::tools::parse_npy(data, size, "fuzz.npy");
  if (!tensor.ok()) return 0;
  // What came out must be consistent: the bytes its shape and dtype promise.
  if (tensor->numel() > 0 && !tensor->raw()) std::abort();
  if (tensor->bytes() != static_cast<size_t>(tensor->numel()) * mote::dtype_size(tensor->dtype())) std::abort();
  return 0;
}
