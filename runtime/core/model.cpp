// Model loading: map the file (or borrow the caller's buffer), verify it
// (model_verifier.cpp), unpack the graph, and hand out weights in place.
#include "mote/model.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/model_verifier.hpp"

namespace mote {

Model::~Model() {
  if (mapping_) munmap(mapping_, size_);
}

Result<std::shared_ptr<const Model>> Model::load(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string why = path + ": cannot open: " + std::strerror(err);
    return err == ENOENT ? not_found(why) : io_error(why);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return io_error(path + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return invalid_argument(path + ": not a regular file");
  }
  auto model = std::shared_ptr<Model>(new Model());
  model->source_ = path;
  model->size_ = static_cast<size_t>(st.st_size);
  if (model->size_ > 0) {
    void* p = mmap(nullptr, model->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      close(fd);
      return io_error(path + ": cannot map: " + std::strerror(err));
    }
    model->mapping_ = p;
    model->bytes_ = static_cast<const uint8_t*>(p);
  }
  close(fd);
  return verify_and_unpack(std::move(model));
}

Result<std::shared_ptr<const Model>> Model::from_buffer(const void* data, size_t size, const std::string& name) {
  if (!data && size) return invalid_argument(name + ": null buffer");
  if (reinterpret_cast<uintptr_t>(data) % kWeightAlignment != 0) {
    // Weights are used in place; SIMD kernels and the format promise 64-byte
    // alignment, so an unaligned buffer would break that promise silently.
    return invalid_argument(name + ": buffer must be " + std::to_string(kWeightAlignment) + "-byte aligned");
  }
  auto model = std::shared_ptr<Model>(new Model());
  model->source_ = name;
  model->bytes_ = static_cast<const uint8_t*>(data);
  model->size_ = size;
  return verify_and_unpack(std::move(model));
}

Result<std::shared_ptr<const Model>> Model::verify_and_unpack(std::shared_ptr<Model> model) {
  Status status = verify_model(model->bytes_, model->size_);
  if (!status.ok()) return status.with_context(model->source_);
  model->def_.reset(fb::GetModel(model->bytes_)->UnPack());
  return std::shared_ptr<const Model>(std::move(model));
}

namespace {
TensorDesc describe(const fb::GraphT& g, int index) {
  const fb::TensorT& t = *g.tensors[static_cast<size_t>(index)];
  return {t.name, t.dtype, t.shape};
}
}  // namespace

std::vector<TensorDesc> Model::inputs() const {
  std::vector<TensorDesc> v;
  for (int i : graph().inputs) v.push_back(describe(graph(), i));
  return v;
}

std::vector<TensorDesc> Model::outputs() const {
  std::vector<TensorDesc> v;
  for (int i : graph().outputs) v.push_back(describe(graph(), i));
  return v;
}

int Model::find_tensor(const std::string& name) const {
  const auto& tensors = graph().tensors;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i]->name == name) return static_cast<int>(i);
  }
  return -1;
}

const void* Model::tensor_data(int index) const { return tensor_data(graph(), index); }

const void* Model::tensor_data(const fb::GraphT& graph, int index) const {
  if (index < 0 || static_cast<size_t>(index) >= graph.tensors.size()) return nullptr;
  uint32_t buffer = graph.tensors[static_cast<size_t>(index)]->buffer;
  if (buffer == 0) return nullptr;
  const fb::Buffer& b = def_->buffers[buffer - 1];
  return bytes_ + def_->segment_offset + b.offset();
}

std::string Model::metadata(const std::string& key) const {
  for (const auto& entry : def_->metadata) {
    if (entry->key == key) return entry->value;
  }
  return "";
}

uint64_t Model::weight_bytes() const {
  uint64_t total = 0;
  for (const auto& t : graph().tensors) {
    if (t->buffer) total += def_->buffers[t->buffer - 1].size();
  }
  return total;
}

int64_t Model::parameter_count() const {
  int64_t total = 0;
  for (const auto& t : graph().tensors) {
    if (t->buffer && (t->dtype == DType::F32 || t->dtype == DType::F16)) total += shape_numel(t->shape);
  }
  return total;
}

}  // namespace mote
