#include "converters/tflite/tflite_converter.hpp"

#include <chrono>

#include "converters/common/mote_writer.hpp"
#include "converters/tflite/importer.hpp"

namespace mote::convert {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

Result<ConvertResult> convert_tflite_file(const std::string& path, const ConvertOptions& options) {
  ConvertResult r;
  auto start = Clock::now();
  MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, load_file(path));
  r.read_ms = ms_since(start);
  start = Clock::now();
  MOTE_ASSIGN_OR_RETURN(TfliteImport imported, import_tflite(bytes, path, options.import));
  r.import_ms = ms_since(start);
  r.format = "TFLite";
  r.summary = std::move(imported.summary);
  r.source_ops = std::move(imported.op_histogram);
  r.source = std::move(imported.source);
  return finish_conversion(imported.graph, std::move(r), path, options);
}

}  // namespace mote::convert
