// Constant folding with the runtime's reference kernels.
//
// One forward walk: each op's shapes are inferred (so a folded Shape feeds
// the next op's inference), and an op is folded when everything it reads is
// known now:
//  - every input is a constant, or
//  - it is Shape or Size of a tensor whose shape is static, or
//  - it is Gather or Slice of a Shape output, with constant indices that
//    select only static dimensions (a dynamic batch leaves the channel and
//    spatial sizes foldable).
// Shape -> Gather -> Concat -> Reshape chains thus fold to a constant shape.
#include <cstring>
#include <limits>

#include "converters/common/op_eval.hpp"
#include "converters/common/passes.hpp"
#include "runtime/ops/slice_gather.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fold_constants";

bool reads_only_shape(const fb::OpT& op) { return op.type == fb::OpType::Shape || op.type == fb::OpType::Size; }

bool inputs_known(const Graph& graph, const fb::OpT& op) {
  if (reads_only_shape(op)) return op.inputs[0] >= 0 && graph.values[static_cast<size_t>(op.inputs[0])].shape_static();
  for (int v : op.inputs) {
    if (v >= 0 && !graph.values[static_cast<size_t>(v)].is_constant()) return false;
  }
  return true;
}

constexpr uint64_t kMaxBytes = std::numeric_limits<uint64_t>::max();

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > kMaxBytes - b ? kMaxBytes : a + b; }

// A value's size, saturating: an inferred shape can be absurd (a fuzzed
// model's 2^61 elements once wrapped to 8 bytes and was folded).
uint64_t value_bytes(const Value& value) {
  const int64_t n = shape_numel(value.shape);
  const uint64_t size = dtype_size(value.dtype);
  if (n < 0 || (size != 0 && static_cast<uint64_t>(n) > kMaxBytes / size)) return kMaxBytes;
  return static_cast<uint64_t>(n) * size;
}

uint64_t input_bytes(const Graph& graph, const fb::OpT& op) {
  uint64_t total = 0;
  for (int v : op.inputs) {
    if (v >= 0 && graph.values[static_cast<size_t>(v)].is_constant()) total += graph.values[static_cast<size_t>(v)].data->bytes();
  }
  return total;
}

// The dims a Shape op reports, -1 where dynamic; nullopt when `v` is not the
// output of a Shape op over a tensor of known rank.
std::optional<std::vector<int64_t>> partial_shape_value(const Graph& graph, const std::vector<int>& producers, int v) {
  int p = producers[static_cast<size_t>(v)];
  if (p < 0 || !graph.ops[static_cast<size_t>(p)]) return std::nullopt;
  const fb::OpT& shape_op = *graph.ops[static_cast<size_t>(p)];
  if (shape_op.type != fb::OpType::Shape || shape_op.inputs.empty()) return std::nullopt;
  const Value& in = graph.values[static_cast<size_t>(shape_op.inputs[0])];
  if (!in.rank_known) return std::nullopt;
  const auto& a = attrs<fb::ShapeAttrsT>(shape_op);
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  int64_t start = a.start < 0 ? std::max<int64_t>(a.start + rank, 0) : std::min(a.start, rank);
  int64_t end = a.end < 0 ? std::max<int64_t>(a.end + rank, 0) : std::min(a.end, rank);
  if (end < start) end = start;
  return std::vector<int64_t>(in.shape.begin() + start, in.shape.begin() + end);
}

// Gather/Slice of a partially known shape: the selected dims, when all are
// static.
std::optional<Tensor> fold_shape_query(const Graph& graph, const std::vector<int>& producers, const fb::OpT& op) {
  if (op.inputs.empty() || op.inputs[0] < 0) return std::nullopt;
  auto dims = partial_shape_value(graph, producers, op.inputs[0]);
  if (!dims) return std::nullopt;
  std::vector<int64_t> picked;
  Shape out_shape;
  if (op.type == fb::OpType::Gather) {
    const Value& indices = graph.values[static_cast<size_t>(op.inputs[1])];
    if (!indices.is_constant() || attrs<fb::AxisAttrsT>(op).axis != 0) return std::nullopt;
    auto list = gather_indices(*indices.data, static_cast<int64_t>(dims->size()));
    if (!list.ok()) return std::nullopt;
    for (int64_t i : *list) picked.push_back((*dims)[static_cast<size_t>(i)]);
    out_shape = indices.shape;
  } else if (op.type == fb::OpType::Slice) {
    auto known = [&](size_t i) -> const Tensor* {
      if (i >= op.inputs.size() || op.inputs[i] < 0) return nullptr;
      const Value& v = graph.values[static_cast<size_t>(op.inputs[i])];
      return v.is_constant() ? &*v.data : nullptr;
    };
    if (!known(1) || !known(2) || (op.inputs.size() > 3 && op.inputs[3] >= 0 && !known(3)) ||
        (op.inputs.size() > 4 && op.inputs[4] >= 0 && !known(4))) {
      return std::nullopt;
    }
    auto slices = resolve_slice({static_cast<int64_t>(dims->size())}, *known(1), *known(2), known(3), known(4));
    if (!slices.ok()) return std::nullopt;
    const SliceAxis& s = (*slices)[0];
    for (int64_t k = 0; k < s.count; ++k) picked.push_back((*dims)[static_cast<size_t>(s.start + k * s.step)]);
    out_shape = {s.count};
  } else {
    return std::nullopt;
  }
  for (int64_t d : picked) {
    if (d < 0) return std::nullopt;
  }
  Tensor t = Tensor::zeros(DType::I64, out_shape);
  if (!picked.empty()) std::memcpy(t.raw(), picked.data(), picked.size() * sizeof(int64_t));
  return t;
}

}  // namespace

Status fold_constants(Graph& graph, PassLog& log, const FoldOptions& options) {
  std::vector<int> producers = graph.producers();
  for (auto& slot : graph.ops) {
    if (!slot) continue;
    const fb::OpT& op = *slot;
    bool inferred = infer_and_record(graph, op);

    if (op.type == fb::OpType::Gather || op.type == fb::OpType::Slice) {
      if (auto t = fold_shape_query(graph, producers, op)) {
        Value& out = graph.values[static_cast<size_t>(op.outputs[0])];
        out.set_info(DType::I64, t->shape());
        out.data = std::move(*t);
        log.count(kPass, "shape queries folded");
        log.note(kPass, "folded " + Graph::op_label(op) + " (static dims of a Shape)");
        slot.reset();
        continue;
      }
    }
    if (!inferred || op.outputs.empty() || !inputs_known(graph, op)) continue;

    uint64_t out_bytes = 0;
    for (int v : op.outputs) out_bytes = saturating_add(out_bytes, value_bytes(graph.values[static_cast<size_t>(v)]));
    if (out_bytes > options.max_growth_bytes && out_bytes > input_bytes(graph, op)) {
      log.count(kPass, "left unfolded (result too large)");
      continue;
    }
    std::vector<TensorInfo> infos;
    for (int v : op.outputs) {
      const Value& value = graph.values[static_cast<size_t>(v)];
      infos.push_back({value.dtype, value.shape, nullptr});
    }
    auto results = evaluate_op(graph, op, infos);
    if (!results.ok()) {
      // Not an error: the op stays and runs at run time, where the runtime
      // reports any real problem with its inputs.
      log.note(kPass, "could not fold " + Graph::op_label(op) + ": " + results.status().message());
      continue;
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      graph.values[static_cast<size_t>(op.outputs[i])].data = std::move((*results)[i]);
    }
    log.count(kPass, "ops folded");
    log.note(kPass, "folded " + Graph::op_label(op));
    slot.reset();
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
