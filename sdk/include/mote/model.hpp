// A loaded .mote model: the verified graph plus its weights, used in place
// from a memory map (or the caller's buffer) without copying. Immutable once
// loaded: share it (std::shared_ptr<const Model>) between threads and
// sessions freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mote/export.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// The newest schema version this runtime writes and reads; see docs/format.md.
inline constexpr uint32_t kSchemaVersion = 1;
// Alignment of the weight segment and of every buffer in it.
inline constexpr uint64_t kWeightAlignment = 64;

// A graph input or output as the model declares it (-1 = dynamic dimension).
struct TensorDesc {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
};

class MOTE_API Model {
 public:
  // Memory-maps `path`, verifies it and unpacks the graph. Errors name the
  // file and, where one is involved, the op and tensor.
  static Result<std::shared_ptr<const Model>> load(const std::string& path);
  // Uses `data` in place; the caller keeps it alive for the model's lifetime.
  // `name` stands for the file name in error messages.
  static Result<std::shared_ptr<const Model>> from_buffer(const void* data, size_t size,
                                                          const std::string& name = "<buffer>");
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // The file's bytes, in place: the flatbuffer, then the weight segment.
  const uint8_t* data() const { return bytes_; }
  size_t size() const { return size_; }
  // The file path, or the name given to from_buffer.
  const std::string& source() const { return source_; }
  const fb::ModelT& def() const { return *def_; }
  const fb::GraphT& graph() const { return *def_->graph; }

  std::vector<TensorDesc> inputs() const;
  std::vector<TensorDesc> outputs() const;
  // Index of the tensor named `name`, or -1.
  int find_tensor(const std::string& name) const;
  // The stored data of tensor `index` (in place in the file), or nullptr when
  // it has none. Its byte size matches dtype and shape (checked at load).
  const void* tensor_data(int index) const;
  // The same for tensor `index` of `graph`: the main graph or one of the
  // control-flow bodies it holds (fb::GraphT::subgraphs).
  const void* tensor_data(const fb::GraphT& graph, int index) const;
  // Metadata value for `key`, or "" when absent.
  std::string metadata(const std::string& key) const;

  // Total bytes of stored tensor data, and the element count of f32/f16
  // initialisers (parameters).
  uint64_t weight_bytes() const;
  int64_t parameter_count() const;

 private:
  Model() = default;
  static Result<std::shared_ptr<const Model>> verify_and_unpack(std::shared_ptr<Model> model);

  std::string source_;
  const uint8_t* bytes_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction when set
  std::unique_ptr<fb::ModelT> def_;
};

}  // namespace mote
