// Fuzz target: TFLite bytes through mote-convert's path (verify, import,
// graph passes, write); see check_conversion.hpp for what must hold.
#include <vector>

#include "converters/tflite/importer.hpp"
#include "tests/fuzz/check_conversion.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mote;
  const std::vector<uint8_t> bytes(data, data + size);
  auto imported = convert::import_tflite(bytes, "fuzz.tflite");
  if (!imported.ok()) return 0;
  fuzz::check_conversion(convert::finish_conversion(imported->graph, convert::ConvertResult{}, "fuzz.tflite", {}));
  return 0;
}
