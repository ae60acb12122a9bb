// Per-shape GEMM tiles measured on this device (tune_gpu_gemms, `mote-bench
// --tune`), kept in a text file beside the pipeline cache so that tuning is
// paid once per device and driver, never at start.
//
// The device profile (device_profile.cpp) gives one tile per kind of device;
// which tile is fastest also depends on the product's shape (a 7x7 feature
// map has 49 columns, a 56x56 one 3,136), so a tuned entry for the exact
// shape takes precedence over the profile. Entries are only ever choices
// among valid tiles: each is checked against the shader's constraints and
// the device's limits when the file is read, and a file that does not parse
// is ignored as a whole with a note naming the file and line.
//
// File layout (text in the C locale whatever the process's, one entry per
// line):
//   mote-gemm-tuning 1
//   device <vendor id> <device id> <driver version> <device name>
//   <rows> <cols> <depth> <batch> <tile> <ms>     (tile as format_gemm_tile)
// `ms` is the time the winner measured, for people reading the file.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "mote/status.hpp"
#include "runtime/vulkan/device.hpp"

namespace mote::vk {

// One GEMM as the kernels launch it: rows x cols outputs summed over depth,
// batch times (Conv: output channels per group, batch x output pixels, input
// channels per group x kernel volume, groups).
struct GemmShape {
  int64_t rows = 0, cols = 0, depth = 0, batch = 1;
  auto operator<=>(const GemmShape&) const = default;
  std::string text() const;  // "512x49x4608x1"
  // The inverse of text() (GpuGemm::shape), or nullopt for other text.
  static std::optional<GemmShape> parse(const std::string& text);
};

struct GemmTuningEntry {
  GemmTileLimits tile;
  double ms = 0;
};

struct GemmTuning {
  std::map<GemmShape, GemmTuningEntry> entries;
};

// Which shader variants a tuning file's winners were timed on: f32, f16
// storage, or f16 storage with f16 products (other loads and arithmetic,
// other winners).
enum class GemmPrecision { kF32, kF16Storage, kF16Arithmetic };
GemmPrecision gemm_precision(bool f16_storage, bool f16_arithmetic);

// "gemm-tuning-<vendor>-<device>.txt" (hex ids), like the pipeline cache, or
// "...-f16.txt" for sessions with f16 storage, "...-f16m.txt" with f16
// products as well; the driver version is checked inside, since a new
// driver compiles differently and its winners may differ.
std::string gemm_tuning_file_name(const DeviceInfo& info, GemmPrecision precision = GemmPrecision::kF32);

std::string encode_gemm_tuning(const GemmTuning& tuning, const DeviceInfo& info);
// The entries, or why the text cannot be used: another device or driver, an
// unknown format, or a malformed or invalid line (named by number).
Result<GemmTuning> decode_gemm_tuning(const std::string& text, const DeviceInfo& info,
                                      const DeviceFeatures& features);

// Reads `dir`/gemm_tuning_file_name(info, precision). Missing file: empty tuning
// and `note` "no tuning file"; unusable file: empty tuning and a note naming
// the path and the reason. Never fails.
GemmTuning load_gemm_tuning(const std::string& dir, const DeviceInfo& info, const DeviceFeatures& features,
                            GemmPrecision precision, std::string& note);

}  // namespace mote::vk
