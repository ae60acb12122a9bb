// The on-disk pipeline cache: Vulkan's opaque cache blob behind our own
// header, so a file from another device, driver or shader set is a miss.
//
// Layout (little-endian): "MOTEPIPE" magic, u32 format version, u32 vendor
// id, u32 device id, u32 driver version, 16-byte pipelineCacheUUID, u64 hash
// of our SPIR-V, u64 blob size, u64 FNV-1a of the blob, then the blob.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"

namespace mote::vk {

struct PipelineCacheKey {
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_version = 0;
  uint8_t uuid[16] = {};
  uint64_t shader_set_hash = 0;
};

std::vector<uint8_t> encode_pipeline_cache(const PipelineCacheKey& key, const std::vector<uint8_t>& blob);
// The blob, or why the file cannot be used (wrong device, truncated...).
// Never fails on malformed input otherwise: anything unexpected is a miss.
Result<std::vector<uint8_t>> decode_pipeline_cache(const PipelineCacheKey& key, const std::vector<uint8_t>& file);

// The directory for cache files: `configured` when not empty, else
// $MOTE_CACHE_DIR, else $XDG_CACHE_HOME/mote, else $HOME/.cache/mote; empty
// when none is known (caching to disk is then off).
std::string pipeline_cache_dir(const std::string& configured);
// File name inside that directory for this device.
std::string pipeline_cache_file_name(const PipelineCacheKey& key);

// Whole-file read; error when missing or unreadable.
Result<std::vector<uint8_t>> read_file_bytes(const std::string& path);
// Writes to a temporary file in the same directory and renames it over
// `path`, creating the directory if needed: readers never see half a file.
Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace mote::vk
