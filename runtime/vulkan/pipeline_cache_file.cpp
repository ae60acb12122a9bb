#include "runtime/vulkan/pipeline_cache_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace mote::vk {
namespace {

constexpr char kMagic[8] = {'M', 'O', 'T', 'E', 'P', 'I', 'P', 'E'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 8 + 4 * 4 + 16 + 8 * 3;

uint64_t fnv1a(const uint8_t* data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

template <class T> void put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}
template <class T> T get(const uint8_t*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}

}  // namespace

std::vector<uint8_t> encode_pipeline_cache(const PipelineCacheKey& key, const std::vector<uint8_t>& blob) {
  std::vector<uint8_t> out(kMagic, kMagic + 8);
  put(out, kFormatVersion);
  put(out, key.vendor_id);
  put(out, key.device_id);
  put(out, key.driver_version);
  out.insert(out.end(), key.uuid, key.uuid + 16);
  put(out, key.shader_set_hash);
  put(out, static_cast<uint64_t>(blob.size()));
  put(out, fnv1a(blob.data(), blob.size()));
  out.insert(out.end(), blob.begin(), blob.end());
  return out;
}

Result<std::vector<uint8_t>> decode_pipeline_cache(const PipelineCacheKey& key, const std::vector<uint8_t>& file) {
  if (file.size() < kHeaderBytes) return not_found("shorter than its header (truncated)");
  if (std::memcmp(file.data(), kMagic, 8) != 0) return not_found("not a Mote pipeline cache");
  const uint8_t* p = file.data() + 8;
  if (get<uint32_t>(p) != kFormatVersion) return not_found("another cache format version");
  uint32_t vendor = get<uint32_t>(p), device = get<uint32_t>(p), driver = get<uint32_t>(p);
  if (vendor != key.vendor_id || device != key.device_id) return not_found("written for another device");
  if (driver != key.driver_version) return not_found("written by another driver version");
  if (std::memcmp(p, key.uuid, 16) != 0) return not_found("another pipelineCacheUUID");
  p += 16;
  if (get<uint64_t>(p) != key.shader_set_hash) return not_found("written for another build of the shaders");
  uint64_t size = get<uint64_t>(p);
  uint64_t checksum = get<uint64_t>(p);
  if (size != file.size() - kHeaderBytes) return not_found("size mismatch (truncated or extended)");
  if (fnv1a(p, size) != checksum) return not_found("checksum mismatch (corrupted)");
  return std::vector<uint8_t>(p, p + size);
}

std::string pipeline_cache_dir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* d = std::getenv("MOTE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mote";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/mote";
  return {};
}

std::string pipeline_cache_file_name(const PipelineCacheKey& key) {
  char name[64];
  std::snprintf(name, sizeof name, "pipelines-%04x-%04x.bin", key.vendor_id, key.device_id);
  return name;
}

Result<std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot open");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return io_error(path + ": read failed");
  return bytes;
}

Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error(tmp + ": cannot create");
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      return io_error(tmp + ": write failed");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return io_error(path + ": cannot replace (" + ec.message() + ")");
  }
  return {};
}

}  // namespace mote::vk
