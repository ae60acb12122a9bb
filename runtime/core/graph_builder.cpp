#include "mote/graph_builder.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mote/model.hpp"
#include "runtime/core/model_packing.hpp"
#include "runtime/core/registry.hpp"

namespace mote {

struct GraphBuilder::State {
  fb::ModelT model;
  // Weight bytes of each buffer, in buffer order.
  std::vector<std::vector<uint8_t>> blobs;
  fb::GraphT& graph() { return *model.graph; }
};

GraphBuilder::GraphBuilder() : state_(std::make_unique<State>()) {
  state_->model.graph = std::make_unique<fb::GraphT>();
  state_->model.schema_version = kSchemaVersion;
  state_->model.producer = "mote GraphBuilder";
}
GraphBuilder::~GraphBuilder() = default;
GraphBuilder::GraphBuilder(GraphBuilder&&) noexcept = default;
GraphBuilder& GraphBuilder::operator=(GraphBuilder&&) noexcept = default;

namespace {
int push_tensor(fb::GraphT& g, const std::string& name, DType dtype, Shape shape) {
  auto t = std::make_unique<fb::TensorT>();
  t->name = name;
  t->dtype = dtype;
  t->shape = std::move(shape);
  g.tensors.push_back(std::move(t));
  return static_cast<int>(g.tensors.size()) - 1;
}
}  // namespace

int GraphBuilder::add_input(const std::string& name, DType dtype, Shape shape) {
  int index = push_tensor(state_->graph(), name, dtype, std::move(shape));
  state_->graph().inputs.push_back(index);
  return index;
}

int GraphBuilder::add_constant(const std::string& name, const Tensor& value) {
  int index = push_tensor(state_->graph(), name, value.dtype(), value.shape());
  const auto* bytes = static_cast<const uint8_t*>(value.raw());
  state_->blobs.emplace_back(bytes, bytes + value.bytes());
  state_->graph().tensors.back()->buffer = static_cast<uint32_t>(state_->blobs.size());
  return index;
}

fb::OpT& GraphBuilder::add_op_node(fb::OpType type, const std::vector<int>& inputs, int num_outputs,
                                   const std::string& name) {
  fb::GraphT& g = state_->graph();
  auto op = std::make_unique<fb::OpT>();
  op->type = type;
  op->name = name.empty() ? std::string(op_type_name(type)) + "_" + std::to_string(g.ops.size()) : name;
  op->inputs = inputs;
  last_outputs_.clear();
  for (int i = 0; i < num_outputs; ++i) {
    int t = push_tensor(g, op->name + ":" + std::to_string(i), DType::F32, {});
    op->outputs.push_back(t);
    last_outputs_.push_back(t);
  }
  g.ops.push_back(std::move(op));
  return *g.ops.back();
}

std::vector<int> GraphBuilder::add_op(fb::OpType type, const std::vector<int>& inputs, int num_outputs,
                                      const std::string& name) {
  add_op_node(type, inputs, num_outputs, name);
  return last_outputs_;
}

fb::OpT& GraphBuilder::last_op() { return *state_->graph().ops.back(); }

namespace {
// Buffer references of `g` and its bodies, moved past `base` earlier blobs.
void shift_buffers(fb::GraphT& g, uint32_t base) {
  for (auto& t : g.tensors) {
    if (t->buffer) t->buffer += base;
  }
  for (auto& body : g.subgraphs) shift_buffers(*body, base);
}
}  // namespace

uint32_t GraphBuilder::add_subgraph(GraphBuilder body) {
  std::unique_ptr<fb::GraphT> g = std::move(body.state_->model.graph);
  shift_buffers(*g, static_cast<uint32_t>(state_->blobs.size()));
  for (auto& blob : body.state_->blobs) state_->blobs.push_back(std::move(blob));
  state_->graph().subgraphs.push_back(std::move(g));
  return static_cast<uint32_t>(state_->graph().subgraphs.size() - 1);
}

void GraphBuilder::mark_output(int tensor, const std::string& name) {
  if (!name.empty()) state_->graph().tensors[static_cast<size_t>(tensor)]->name = name;
  state_->graph().outputs.push_back(tensor);
}

void GraphBuilder::set_metadata(const std::string& key, const std::string& value) {
  for (auto& entry : state_->model.metadata) {
    if (entry->key == key) {
      entry->value = value;
      return;
    }
  }
  auto entry = std::make_unique<fb::MetadataEntryT>();
  entry->key = key;
  entry->value = value;
  state_->model.metadata.push_back(std::move(entry));
}

void GraphBuilder::set_producer(const std::string& producer) { state_->model.producer = producer; }

void GraphBuilder::set_tensor_info(int tensor, DType dtype, Shape shape) {
  auto& t = *state_->graph().tensors[static_cast<size_t>(tensor)];
  t.dtype = dtype;
  t.shape = std::move(shape);
}

void GraphBuilder::set_tensor_name(int tensor, const std::string& name) {
  state_->graph().tensors[static_cast<size_t>(tensor)]->name = name;
}

int GraphBuilder::tensor_count() const { return static_cast<int>(state_->graph().tensors.size()); }
int GraphBuilder::op_count() const { return static_cast<int>(state_->graph().ops.size()); }

namespace {
uint64_t align_up(uint64_t v) { return (v + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment; }
}  // namespace

Result<std::vector<uint8_t>> GraphBuilder::serialize() const {
  fb::ModelT model = state_->model;  // deep copy: the offsets below are per file
  model.buffers.clear();
  uint64_t segment_size = 0;
  for (const auto& blob : state_->blobs) {
    model.buffers.emplace_back(segment_size, blob.size());
    segment_size = align_up(segment_size + blob.size());
  }
  model.segment_size = segment_size;
  std::vector<uint8_t> file;
  MOTE_ASSIGN_OR_RETURN(uint64_t segment_offset, pack_model(model, [&file](uint64_t size) {
                          file.assign(size, 0);
                          return file.data();
                        }));
  for (size_t i = 0; i < state_->blobs.size(); ++i) {
    const auto& blob = state_->blobs[i];
    if (!blob.empty()) std::memcpy(file.data() + segment_offset + model.buffers[i].offset(), blob.data(), blob.size());
  }
  return file;
}

Status GraphBuilder::save(const std::string& path) const {
  MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, serialize());
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return io_error(tmp + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (fsync(fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return io_error(tmp + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return io_error(path + ": cannot rename temporary file into place: " + std::strerror(err));
  }
  return {};
}

}  // namespace mote
