#include "converters/common/mote_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mote/graph_builder.hpp"
#include "runtime/core/model_verifier.hpp"

namespace mote::convert {

namespace {

// Adds `graph`'s tensors and ops to `b`; bodies first, so each keeps its index.
Status write_graph(const Graph& graph, GraphBuilder& b) {
  for (const auto& body : graph.subgraphs) {
    GraphBuilder sub;
    MOTE_RETURN_IF_ERROR(write_graph(*body, sub));
    b.add_subgraph(std::move(sub));
  }

  // Builder index of each value, -1 until it exists in the builder.
  std::vector<int> index(graph.values.size(), -1);
  for (int v : graph.inputs) {
    const Value& value = graph.values[static_cast<size_t>(v)];
    index[static_cast<size_t>(v)] = b.add_input(value.name, value.dtype, value.shape);
  }
  // Constants are added when first used so unused ones cost nothing.
  auto resolve = [&](int v) -> Result<int> {
    if (v < 0) return -1;
    int& slot = index[static_cast<size_t>(v)];
    if (slot >= 0) return slot;
    const Value& value = graph.values[static_cast<size_t>(v)];
    if (!value.is_constant()) {
      return internal_error("value '" + value.name + "' is read before any op writes it");
    }
    slot = b.add_constant(value.name, *value.data);
    return slot;
  };

  for (const auto& op : graph.ops) {
    if (!op) continue;
    std::vector<int> inputs;
    for (int v : op->inputs) {
      auto r = resolve(v);
      if (!r.ok()) return r.status().with_context(Graph::op_label(*op));
      inputs.push_back(*r);
    }
    std::vector<int> outs = b.add_op(op->type, inputs, static_cast<int>(op->outputs.size()), op->name);
    // Everything but the tensor indices (attributes, version, fused
    // activation, fields a newer schema adds) travels as it is.
    fb::OpT& written = b.last_op();
    std::vector<int32_t> builder_inputs = written.inputs, builder_outputs = written.outputs;
    written = *op;
    written.inputs = std::move(builder_inputs);
    written.outputs = std::move(builder_outputs);
    for (size_t i = 0; i < op->outputs.size(); ++i) {
      int v = op->outputs[i];
      index[static_cast<size_t>(v)] = outs[i];
      const Value& value = graph.values[static_cast<size_t>(v)];
      // The builder names outputs after the op; the value's name is the
      // source's own (or a derived one no source tensor uses).
      b.set_tensor_name(outs[i], value.name);
      if (value.dtype_known) b.set_tensor_info(outs[i], value.dtype, value.rank_known ? value.shape : Shape{});
    }
  }

  // A graph output that is also a graph input, or listed twice, gets its own
  // tensor through an Identity: marking renames the tensor, and an input
  // must keep its name.
  std::vector<char> marked(graph.values.size(), 0);
  for (int v : graph.outputs) {
    const Value& value = graph.values[static_cast<size_t>(v)];
    MOTE_ASSIGN_OR_RETURN(int t, resolve(v));
    if (graph.is_input(v) || marked[static_cast<size_t>(v)]) {
      t = b.add_op(fb::OpType::Identity, {t}, 1, value.name + "_identity")[0];
      b.set_tensor_info(t, value.dtype, value.shape);
    }
    marked[static_cast<size_t>(v)] = 1;
    b.mark_output(t, value.name);
  }
  return {};
}

}  // namespace

Result<std::vector<uint8_t>> write_mote(const Graph& graph) {
  GraphBuilder b;
  b.set_producer(graph.producer.empty() ? "mote-convert" : graph.producer);
  for (const auto& [key, value] : graph.metadata) b.set_metadata(key, value);
  MOTE_RETURN_IF_ERROR(write_graph(graph, b));
  MOTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, b.serialize());
  // The runtime's own verifier reads what was written: a converter bug (an
  // inferred shape that overflows, found by fuzzing) becomes an error naming
  // the tensor instead of a file that will not load.
  Status verified = verify_model(bytes.data(), bytes.size());
  if (!verified.ok()) return internal_error("the model written fails verification: " + verified.message());
  return bytes;
}

Status save_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return io_error(tmp + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return io_error(path + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return io_error(path + ": cannot move the temporary file into place: " + std::strerror(err));
  }
  return {};
}

Result<std::vector<uint8_t>> load_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return io_error(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return io_error(path + ": read failed");
  return bytes;
}

}  // namespace mote::convert
