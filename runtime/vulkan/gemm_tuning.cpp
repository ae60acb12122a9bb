#include "runtime/vulkan/gemm_tuning.hpp"

#include <cinttypes>
#include <cstdio>
#include <iomanip>
#include <locale>
#include <sstream>

#include "runtime/vulkan/device_profile.hpp"
#include "runtime/vulkan/pipeline_cache_file.hpp"

namespace mote::vk {
namespace {

constexpr const char* kMagic = "mote-gemm-tuning";
constexpr int kFormat = 1;

std::string device_line(const DeviceInfo& info) {
  return "device " + std::to_string(info.vendor_id) + " " + std::to_string(info.device_id) + " " +
         std::to_string(info.driver_version) + " " + info.name;
}

}  // namespace

std::string GemmShape::text() const {
  return std::to_string(rows) + "x" + std::to_string(cols) + "x" + std::to_string(depth) + "x" +
         std::to_string(batch);
}

std::optional<GemmShape> GemmShape::parse(const std::string& text) {
  GemmShape s;
  int end = 0;
  if (std::sscanf(text.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64 "x%" SCNd64 "%n", &s.rows, &s.cols, &s.depth,
                  &s.batch, &end) != 4 ||
      static_cast<size_t>(end) != text.size()) {
    return std::nullopt;
  }
  return s;
}

GemmPrecision gemm_precision(bool f16_storage, bool f16_arithmetic) {
  if (!f16_storage) return GemmPrecision::kF32;
  return f16_arithmetic ? GemmPrecision::kF16Arithmetic : GemmPrecision::kF16Storage;
}

std::string gemm_tuning_file_name(const DeviceInfo& info, GemmPrecision precision) {
  const char* suffix = precision == GemmPrecision::kF16Arithmetic ? "-f16m"
                       : precision == GemmPrecision::kF16Storage  ? "-f16"
                                                                  : "";
  char name[64];
  std::snprintf(name, sizeof name, "gemm-tuning-%04x-%04x%s.txt", info.vendor_id, info.device_id, suffix);
  return name;
}

std::string encode_gemm_tuning(const GemmTuning& tuning, const DeviceInfo& info) {
  std::ostringstream out;
  out.imbue(std::locale::classic());  // "0.5", not "0,5", in any process locale
  out << std::fixed << std::setprecision(4);
  out << kMagic << " " << kFormat << "\n" << device_line(info) << "\n";
  for (const auto& [shape, entry] : tuning.entries) {
    out << shape.rows << " " << shape.cols << " " << shape.depth << " " << shape.batch << " "
        << format_gemm_tile(entry.tile) << " " << entry.ms << "\n";
  }
  return out.str();
}

Result<GemmTuning> decode_gemm_tuning(const std::string& text, const DeviceInfo& info,
                                      const DeviceFeatures& features) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != std::string(kMagic) + " " + std::to_string(kFormat)) {
    return invalid_argument("line 1: expected '" + std::string(kMagic) + " " + std::to_string(kFormat) + "'");
  }
  if (!std::getline(in, line) || line != device_line(info)) {
    return invalid_argument("line 2: written for another device or driver ('" + line.substr(0, 120) + "')");
  }
  GemmTuning tuning;
  for (int number = 3; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    fields.imbue(std::locale::classic());
    GemmShape shape;
    std::string tile_text;
    GemmTuningEntry entry;
    std::string rest;
    if (!(fields >> shape.rows >> shape.cols >> shape.depth >> shape.batch >> tile_text >> entry.ms) ||
        (fields >> rest) || shape.rows <= 0 || shape.cols <= 0 || shape.depth <= 0 || shape.batch <= 0 ||
        !(entry.ms >= 0)) {
      return invalid_argument("line " + std::to_string(number) +
                              ": expected '<rows> <cols> <depth> <batch> <tile> <ms>' with positive sizes");
    }
    auto tile = parse_gemm_tile(tile_text, features.gemm_tile, features);
    if (!tile.ok()) return invalid_argument("line " + std::to_string(number) + ": " + tile.status().message());
    entry.tile = tile.value();
    tuning.entries[shape] = entry;
  }
  return tuning;
}

GemmTuning load_gemm_tuning(const std::string& dir, const DeviceInfo& info, const DeviceFeatures& features,
                            GemmPrecision precision, std::string& note) {
  if (dir.empty()) {
    note = "no cache directory";
    return {};
  }
  const std::string path = dir + "/" + gemm_tuning_file_name(info, precision);
  auto bytes = read_file_bytes(path);
  if (!bytes.ok()) {
    note = "no tuning file";
    return {};
  }
  auto tuning = decode_gemm_tuning(std::string(bytes->begin(), bytes->end()), info, features);
  if (!tuning.ok()) {
    note = "ignored " + path + ": " + tuning.status().message();
    return {};
  }
  note = std::to_string(tuning->entries.size()) + " tuned GEMM shape(s) in " + path;
  return std::move(tuning).value();
}

}  // namespace mote::vk
