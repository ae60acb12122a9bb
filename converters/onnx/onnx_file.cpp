#include "converters/onnx/onnx_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <google/protobuf/io/coded_stream.h>

#include "onnx.pb.h"

namespace mote::convert {

Result<std::unique_ptr<onnx::ModelProto>> parse_onnx(const void* data, size_t size, const std::string& name) {
  // Protobuf messages are limited to 2 GB; larger models keep their weights
  // in external data files.
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return unsupported(name + ": " + std::to_string(size) +
                       " bytes is over protobuf's 2 GB limit; store the weights as external data");
  }
  google::protobuf::io::CodedInputStream stream(static_cast<const uint8_t*>(data), static_cast<int>(size));
  stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
  auto model = std::make_unique<onnx::ModelProto>();
  if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    return invalid_model(name + ": not a valid ONNX model (protobuf parsing failed; truncated or not .onnx?)");
  }
  if (!model->has_graph()) return invalid_model(name + ": the ONNX model has no graph");
  return model;
}

Result<std::unique_ptr<onnx::ModelProto>> read_onnx_file(const std::string& path) {
  // Mapped rather than read: the file is then in memory once (as the
  // protobuf's own copy) instead of twice while parsing.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return io_error(path + ": not a regular file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    close(fd);
    return invalid_model(path + ": empty file");
  }
  void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED) return io_error(path + ": cannot map: " + std::strerror(errno));
  auto model = parse_onnx(data, size, path);
  munmap(data, size);
  return model;
}

}  // namespace mote::convert
