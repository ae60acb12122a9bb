// f16 graphs compute in f32: the runtime's kernels do float arithmetic in
// f32 (f16 is a storage format for weights, and on Vulkan for buffers), so a
// model whose tensors are f16 keeps f16 only at its edges. Graph inputs are
// cast to f32 on entry, f16 outputs are cast back on exit, f16 constants are
// widened, every f16 intermediate becomes f32, and ops that create f16
// (Cast, ConstantOfShape) create f32 instead. Results are those of f32
// arithmetic rounded once to f16 at the end: at least as accurate as f16
// arithmetic, not bit-identical to it.
//
// A control-flow body has no edges of its own: the enclosing graph, widened
// the same way, feeds it f32, so its f16 inputs and outputs become f32 too.
#include "converters/common/passes.hpp"
#include "runtime/core/half.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "widen_f16";

Tensor widen(const Tensor& half) {
  Tensor wide = Tensor::zeros(DType::F32, half.shape());
  const uint16_t* src = static_cast<const uint16_t*>(half.raw());
  for (int64_t i = 0; i < half.numel(); ++i) wide.data<float>()[i] = half_to_float(src[i]);
  return wide;
}

fb::OpT& add_cast(Graph& graph, int from, int to, DType dtype) {
  fb::CastAttrsT cast;
  cast.to = dtype;
  fb::OpT& op = graph.add_op(fb::OpType::Cast, "cast_" + graph.values[static_cast<size_t>(to)].name, {from}, {to});
  set_attrs(op, cast);
  return op;
}

}  // namespace

Status widen_f16(Graph& graph, PassLog& log, bool keep_f16_edges) {
  auto is_f16 = [&](int v) { return graph.values[static_cast<size_t>(v)].dtype_known && graph.values[static_cast<size_t>(v)].dtype == DType::F16; };
  std::vector<int> f16_outputs;
  for (int out : graph.outputs) {
    if (keep_f16_edges && is_f16(out) && !graph.is_input(out)) f16_outputs.push_back(out);
  }
  // Inputs: readers read an f32 copy, made by Casts placed before every op.
  std::vector<std::unique_ptr<fb::OpT>> entry_casts;
  for (int in : graph.inputs) {
    if (!keep_f16_edges || !is_f16(in)) continue;
    // Copied: adding a value below may move graph.values.
    const Value input = graph.values[static_cast<size_t>(in)];
    const int wide = graph.add_derived_value(input.name + "_f32");
    graph.values[static_cast<size_t>(wide)].set_info(DType::F32, input.shape);
    graph.values[static_cast<size_t>(wide)].rank_known = graph.values[static_cast<size_t>(in)].rank_known;
    graph.replace_uses(in, wide);
    add_cast(graph, in, wide, DType::F32);
    entry_casts.push_back(std::move(graph.ops.back()));
    graph.ops.pop_back();
    log.count(kPass, "f16 inputs cast to f32");
  }
  graph.ops.insert(graph.ops.begin(), std::make_move_iterator(entry_casts.begin()),
                   std::make_move_iterator(entry_casts.end()));
  // Outputs: the producer writes an f32 value, a Cast at the end the output.
  for (int out : f16_outputs) {
    const int wide = graph.add_derived_value(graph.values[static_cast<size_t>(out)].name + "_f32");
    graph.values[static_cast<size_t>(wide)].set_info(DType::F32, graph.values[static_cast<size_t>(out)].shape);
    graph.values[static_cast<size_t>(wide)].rank_known = graph.values[static_cast<size_t>(out)].rank_known;
    graph.replace_uses(out, wide);
    for (auto& op : graph.ops) {
      if (!op) continue;
      for (int& o : op->outputs) {
        if (o == out) o = wide;
      }
    }
    add_cast(graph, wide, out, DType::F16);
    log.count(kPass, "f16 outputs cast back from f32");
  }
  const std::vector<int> producers = graph.producers();
  for (size_t i = 0; i < graph.values.size(); ++i) {
    Value& v = graph.values[i];
    const int index = static_cast<int>(i);
    if (!v.dtype_known || v.dtype != DType::F16 || (keep_f16_edges && graph.is_input(index))) continue;
    if (keep_f16_edges && graph.is_output(index) && producers[i] >= 0 &&
        graph.ops[static_cast<size_t>(producers[i])]->type == fb::OpType::Cast) {
      continue;  // the exit Cast's own output
    }
    if (v.is_constant()) {
      v.data = widen(*v.data);
      log.count(kPass, "f16 constants widened");
    }
    v.dtype = DType::F32;
  }
  for (auto& op : graph.ops) {
    if (!op) continue;
    if (op->type == fb::OpType::Cast && attrs<fb::CastAttrsT>(*op).to == DType::F16 &&
        (!keep_f16_edges || !graph.is_output(op->outputs[0]))) {
      fb::CastAttrsT cast;
      cast.to = DType::F32;
      set_attrs(*op, cast);
      log.count(kPass, "Casts to f16 made Casts to f32");
    }
    if (op->type == fb::OpType::ConstantOfShape && attrs<fb::ConstantOfShapeAttrsT>(*op).dtype == DType::F16) {
      fb::ConstantOfShapeAttrsT c = attrs<fb::ConstantOfShapeAttrsT>(*op);
      c.dtype = DType::F32;
      set_attrs(*op, c);
    }
  }
  return {};
}

}  // namespace mote::convert
