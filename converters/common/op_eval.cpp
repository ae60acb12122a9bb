#include "converters/common/op_eval.hpp"

#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::convert {

Result<std::vector<TensorInfo>> infer_op(const Graph& graph, const fb::OpT& op) {
  const OpDef* def = find_op_def(op.type);
  if (!def || !def->infer) return unsupported(Graph::op_label(op) + ": this build has no definition of the op");
  ShapeContext ctx{op, {}, {}, {}};
  for (int v : op.inputs) {
    TensorInfo info;
    bool present = v >= 0;
    if (present) {
      const Value& value = graph.values[static_cast<size_t>(v)];
      if (!value.dtype_known || !value.shape_static()) {
        return unsupported(Graph::op_label(op) + ": input '" + value.name + "' has no static shape");
      }
      info.dtype = value.dtype;
      info.shape = value.shape;
      if (value.data) info.value = &*value.data;
    }
    ctx.inputs.push_back(std::move(info));
    ctx.present.push_back(present);
  }
  MOTE_RETURN_IF_ERROR(def->infer(ctx));
  if (ctx.outputs.size() < op.outputs.size()) {
    return internal_error(Graph::op_label(op) + ": the shape function gave " + std::to_string(ctx.outputs.size()) +
                          " outputs for " + std::to_string(op.outputs.size()));
  }
  ctx.outputs.resize(op.outputs.size());
  for (const TensorInfo& out : ctx.outputs) {
    if (shape_numel(out.shape) < 0) {
      return invalid_model(Graph::op_label(op) + ": inferred an invalid shape " + shape_to_string(out.shape));
    }
  }
  return std::move(ctx.outputs);
}

Result<std::vector<Tensor>> evaluate_op(const Graph& graph, const fb::OpT& op, const std::vector<TensorInfo>& outputs) {
  const CpuKernel* kernel = find_reference_kernel(op.type);
  if (!kernel) kernel = find_cpu_kernel(op.type);
  if (!kernel || !kernel->run) return unsupported(Graph::op_label(op) + ": no kernel to evaluate it with");
  // Conversion is single-threaded: folded ops are small (shape arithmetic,
  // weight transforms) and this keeps the converter deterministic.
  static ThreadPool pool(1);

  std::vector<Tensor> in_storage;
  in_storage.reserve(op.inputs.size());
  KernelContext ctx{op, {}, {}, &pool, nullptr};
  for (int v : op.inputs) {
    if (v < 0) {
      ctx.inputs.push_back(nullptr);
      continue;
    }
    const Value& value = graph.values[static_cast<size_t>(v)];
    in_storage.push_back(value.data ? *value.data
                                    : Tensor::borrow(value.dtype, value.shape, static_cast<const void*>(nullptr)));
    ctx.inputs.push_back(&in_storage.back());
  }
  std::vector<Tensor> results;
  results.reserve(outputs.size());
  for (const TensorInfo& info : outputs) {
    results.push_back(Tensor::zeros(info.dtype, info.shape));
    if (shape_numel(info.shape) < 0 || (results.back().numel() > 0 && !results.back().raw())) {
      return Status(StatusCode::kOutOfMemory, "cannot allocate " + shape_to_string(info.shape) + " " +
                                                  dtype_name(info.dtype) + " to evaluate " + Graph::op_label(op));
    }
  }
  for (Tensor& t : results) ctx.outputs.push_back(&t);
  std::unique_ptr<KernelState> state;
  if (kernel->prepare) MOTE_RETURN_IF_ERROR(kernel->prepare(ctx, state));
  ctx.state = state.get();
  MOTE_RETURN_IF_ERROR(kernel->run(ctx));
  return results;
}

}  // namespace mote::convert
