#include "runtime/core/model_verifier.hpp"

#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mote/model.hpp"
#include "runtime/core/field_alignment.hpp"
#include "runtime/core/registry.hpp"

namespace mote {
namespace {

std::string tensor_label(const fb::Graph& g, int64_t index) {
  std::string s = "tensor " + std::to_string(index);
  if (index >= 0 && g.tensors() && index < static_cast<int64_t>(g.tensors()->size())) {
    const fb::Tensor* t = g.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
    if (t && t->name()) s += " '" + t->name()->str() + "'";
  }
  return s;
}

std::string op_label(const fb::Op& op, size_t index) {
  std::string s = "op #" + std::to_string(index) + " (" + op_type_name(op.type());
  if (op.name() && op.name()->size()) s += " '" + op.name()->str() + "'";
  return s + ")";
}

bool is_known_dtype(fb::DType dtype) { return dtype_size(dtype) != 0; }

Status verify_segment(const fb::Model& model, size_t file_size) {
  uint64_t seg_off = model.segment_offset();
  uint64_t seg_size = model.segment_size();
  // An empty segment skips only the alignment check: its offset must still
  // lie in the file (tensor_data adds it to the base pointer), and every
  // buffer must then be empty (a fuzzed file pointed buffers past the end).
  if (seg_size != 0 && seg_off % kWeightAlignment != 0) {
    return invalid_model("weight segment offset " + std::to_string(seg_off) + " is not " +
                         std::to_string(kWeightAlignment) + "-byte aligned");
  }
  if (seg_off > file_size || seg_size > file_size - seg_off) {
    return invalid_model("weight segment [" + std::to_string(seg_off) + ", +" + std::to_string(seg_size) +
                         ") extends past the end of the file (" + std::to_string(file_size) +
                         " bytes; truncated?)");
  }
  if (!model.buffers()) return {};
  for (flatbuffers::uoffset_t i = 0; i < model.buffers()->size(); ++i) {
    const fb::Buffer* b = model.buffers()->Get(i);
    if (b->offset() % kWeightAlignment != 0) {
      return invalid_model("buffer " + std::to_string(i) + " offset " + std::to_string(b->offset()) +
                           " is not " + std::to_string(kWeightAlignment) + "-byte aligned");
    }
    if (b->offset() > seg_size || b->size() > seg_size - b->offset()) {
      return invalid_model("buffer " + std::to_string(i) + " [" + std::to_string(b->offset()) + ", +" +
                           std::to_string(b->size()) + ") lies outside the weight segment of " +
                           std::to_string(seg_size) + " bytes");
    }
  }
  return {};
}

Status verify_tensors(const fb::Model& model, const fb::Graph& g) {
  size_t buffer_count = model.buffers() ? model.buffers()->size() : 0;
  size_t count = g.tensors() ? g.tensors()->size() : 0;
  for (size_t i = 0; i < count; ++i) {
    const fb::Tensor* t = g.tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
    std::string label = tensor_label(g, static_cast<int64_t>(i));
    if (!is_known_dtype(t->dtype())) {
      return invalid_model(label + ": unknown dtype " + std::to_string(static_cast<int>(t->dtype())));
    }
    Shape shape;
    bool is_static = true;
    if (t->shape()) {
      for (int64_t d : *t->shape()) {
        if (d < -1) return invalid_model(label + ": invalid dimension " + std::to_string(d));
        if (d == -1) is_static = false;
        shape.push_back(d);
      }
    }
    int64_t numel = -1;
    if (is_static) {
      numel = shape_numel(shape);
      if (numel < 0) return invalid_model(label + ": shape " + shape_to_string(shape) + " overflows the element count");
      if (static_cast<uint64_t>(numel) > std::numeric_limits<uint64_t>::max() / dtype_size(t->dtype())) {
        return invalid_model(label + ": shape " + shape_to_string(shape) + " overflows the byte size");
      }
    }
    if (t->buffer() == 0) continue;
    if (t->buffer() > buffer_count) {
      return invalid_model(label + ": buffer index " + std::to_string(t->buffer() - 1) + " out of range (" +
                           std::to_string(buffer_count) + " buffers)");
    }
    if (!is_static) return invalid_model(label + ": stored data needs a static shape, got " + shape_to_string(shape));
    uint64_t expected = static_cast<uint64_t>(numel) * dtype_size(t->dtype());
    uint64_t actual = model.buffers()->Get(t->buffer() - 1)->size();
    if (expected != actual) {
      return invalid_model(label + ": " + dtype_name(t->dtype()) + " " + shape_to_string(shape) + " needs " +
                           std::to_string(expected) + " bytes but its buffer holds " + std::to_string(actual));
    }
  }
  return {};
}

Status verify_index_list(const fb::Graph& g, const flatbuffers::Vector<int32_t>* list, const char* what) {
  size_t count = g.tensors() ? g.tensors()->size() : 0;
  if (!list) return {};
  // Inputs and outputs are found by name (Session::run with a map, the C
  // API): two of one list may not share a name.
  std::unordered_map<std::string_view, size_t> first_named;
  for (size_t k = 0; k < list->size(); ++k) {
    int32_t index = list->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (index < 0 || static_cast<size_t>(index) >= count) {
      return invalid_model(std::string(what) + " refers to tensor " + std::to_string(index) + ", but the graph has " +
                           std::to_string(count) + " tensors");
    }
    const flatbuffers::String* name = g.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->name();
    if (!name || name->size() == 0) continue;
    auto [it, fresh] = first_named.emplace(name->string_view(), k);
    if (!fresh) {
      return invalid_model(std::string(what) + " " + std::to_string(k) + " (" + tensor_label(g, index) + "): " + what +
                           " " + std::to_string(it->second) + " has the same name");
    }
  }
  return {};
}

// Bodies already verified: many ops may name the same body, and checking it
// once per naming op would let a small hostile file cost exponential time.
using VerifiedBodies = std::unordered_set<const fb::Graph*>;

Status verify_graph(const fb::Model& model, const fb::Graph& g, VerifiedBodies& verified);

// Control-flow ops name bodies among the graph's subgraphs; each is a graph
// of its own, verified as one (the FlatBuffers verifier bounds the nesting).
Status verify_bodies(const fb::Model& model, const fb::Graph& g, const fb::Op& op, const std::string& label,
                     VerifiedBodies& verified) {
  if (!op.subgraphs()) return {};
  const size_t count = g.subgraphs() ? g.subgraphs()->size() : 0;
  for (flatbuffers::uoffset_t b = 0; b < op.subgraphs()->size(); ++b) {
    const uint32_t index = op.subgraphs()->Get(b);
    if (index >= count) {
      return invalid_model(label + ": body " + std::to_string(b) + " is subgraph " + std::to_string(index) +
                           ", but the graph has " + std::to_string(count));
    }
    const fb::Graph* body = g.subgraphs()->Get(index);
    if (!verified.insert(body).second) continue;
    Status st = verify_graph(model, *body, verified);
    if (!st.ok()) return st.with_context(label + ", body " + std::to_string(b));
  }
  return {};
}

Status verify_ops(const fb::Model& model, const fb::Graph& g, VerifiedBodies& verified) {
  size_t count = g.tensors() ? g.tensors()->size() : 0;
  // available[i]: tensor i has a value before the current op runs.
  std::vector<char> available(count, 0);
  for (size_t i = 0; i < count; ++i) {
    if (g.tensors()->Get(static_cast<flatbuffers::uoffset_t>(i))->buffer() != 0) available[i] = 1;
  }
  if (g.inputs()) {
    for (int32_t index : *g.inputs()) available[static_cast<size_t>(index)] = 1;
  }
  size_t op_count = g.ops() ? g.ops()->size() : 0;
  for (size_t k = 0; k < op_count; ++k) {
    const fb::Op& op = *g.ops()->Get(static_cast<flatbuffers::uoffset_t>(k));
    std::string label = op_label(op, k);
    const OpDef* def = find_op_def(op.type());
    if (!def) {
      bool named = *fb::EnumNameOpType(op.type()) != '\0';
      return unsupported(label + (named ? ": this build has no definition of the op"
                                        : ": op type " + std::to_string(static_cast<uint32_t>(op.type())) +
                                              " is unknown (model written by a newer Mote?)"));
    }
    int n_in = op.inputs() ? static_cast<int>(op.inputs()->size()) : 0;
    int n_out = op.outputs() ? static_cast<int>(op.outputs()->size()) : 0;
    if (n_in < def->min_inputs || n_in > def->max_inputs) {
      return invalid_model(label + ": has " + std::to_string(n_in) + " inputs, expected " +
                           std::to_string(def->min_inputs) + ".." + std::to_string(def->max_inputs));
    }
    if (n_out < def->min_outputs || n_out > def->max_outputs) {
      return invalid_model(label + ": has " + std::to_string(n_out) + " outputs, expected " +
                           std::to_string(def->min_outputs) + ".." + std::to_string(def->max_outputs));
    }
    for (int j = 0; j < n_in; ++j) {
      int32_t index = op.inputs()->Get(static_cast<flatbuffers::uoffset_t>(j));
      if (index == -1 && j >= def->min_inputs) continue;  // omitted optional input
      if (index < 0 || static_cast<size_t>(index) >= count) {
        return invalid_model(label + ": input " + std::to_string(j) + " refers to tensor " + std::to_string(index) +
                             ", but the graph has " + std::to_string(count) + " tensors");
      }
      if (!available[static_cast<size_t>(index)]) {
        return invalid_model(label + ": input " + std::to_string(j) + " (" + tensor_label(g, index) +
                             ") is not produced by any earlier op, nor a graph input or constant");
      }
    }
    for (int j = 0; j < n_out; ++j) {
      int32_t index = op.outputs()->Get(static_cast<flatbuffers::uoffset_t>(j));
      if (index < 0 || static_cast<size_t>(index) >= count) {
        return invalid_model(label + ": output " + std::to_string(j) + " refers to tensor " + std::to_string(index) +
                             ", but the graph has " + std::to_string(count) + " tensors");
      }
      if (available[static_cast<size_t>(index)]) {
        return invalid_model(label + ": output " + std::to_string(j) + " (" + tensor_label(g, index) +
                             ") is already produced by an earlier op, or is a graph input or constant");
      }
      available[static_cast<size_t>(index)] = 1;
    }
    MOTE_RETURN_IF_ERROR(verify_bodies(model, g, op, label, verified));
  }
  if (g.outputs()) {
    for (int32_t index : *g.outputs()) {
      if (!available[static_cast<size_t>(index)]) {
        return invalid_model("graph output " + tensor_label(g, index) + " is never produced");
      }
    }
  }
  return {};
}

Status verify_graph(const fb::Model& model, const fb::Graph& g, VerifiedBodies& verified) {
  MOTE_RETURN_IF_ERROR(verify_tensors(model, g));
  MOTE_RETURN_IF_ERROR(verify_index_list(g, g.inputs(), "graph input"));
  MOTE_RETURN_IF_ERROR(verify_index_list(g, g.outputs(), "graph output"));
  return verify_ops(model, g, verified);
}

}  // namespace

Status verify_model(const uint8_t* bytes, size_t size) {
  if (size < 8) return invalid_model("file too short (" + std::to_string(size) + " bytes) to be a .mote model");
  if (!fb::ModelBufferHasIdentifier(bytes)) {
    return invalid_model("not a .mote model (file identifier is not \"MOTE\")");
  }
  // The FlatBuffers part must fit in 2 GB; the weight segment after it may
  // not, so the verifier sees at most that much of the file.
  size_t fb_limit = std::min<size_t>(size, FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier verifier(bytes, fb_limit);
  if (!fb::VerifyModelBuffer(verifier)) {
    return invalid_model("the FlatBuffers structure is corrupt or truncated");
  }
  MOTE_RETURN_IF_ERROR(verify_field_alignment(bytes, fb::ModelTypeTable()));
  const fb::Model& model = *fb::GetModel(bytes);
  if (model.schema_version() == 0 || model.schema_version() > kSchemaVersion) {
    return unsupported("schema version " + std::to_string(model.schema_version()) + " (this runtime reads 1.." +
                       std::to_string(kSchemaVersion) + ")");
  }
  if (!model.graph()) return invalid_model("no graph");
  MOTE_RETURN_IF_ERROR(verify_segment(model, size));
  VerifiedBodies verified;
  return verify_graph(model, *model.graph(), verified);
}

}  // namespace mote
