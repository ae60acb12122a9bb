#include "runtime/train/autodiff.hpp"

#include <map>

#include "runtime/core/registry.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {

namespace {

bool is_float(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::F64; }

std::string op_label(const fb::OpT& op) { return std::string(op_type_name(op.type)) + " '" + op.name + "'"; }

// A tensor of ones (or zeros) shaped like `like`: a scalar expanded, so the
// file does not store a full buffer of them.
int filled_like(TrainGraph& g, int like, float value) { return g.expand(g.scalar(value), g.shape(like)); }

}  // namespace

Result<std::vector<int>> build_gradients(TrainGraph& g, int loss, const std::vector<int>& wrt) {
  MOTE_RETURN_IF_ERROR(g.status());
  // The forward ops: the backward ops appended below must not be revisited.
  const std::vector<fb::OpT*> forward = g.ops();

  // Which tensors depend on a requested one: only their gradients are built.
  std::vector<bool> depends(static_cast<size_t>(g.builder().tensor_count()), false);
  for (int t : wrt) depends[static_cast<size_t>(t)] = true;
  for (const fb::OpT* op : forward) {
    bool any = false;
    for (int in : op->inputs) any = any || (in >= 0 && depends[static_cast<size_t>(in)]);
    if (!any) continue;
    for (int out : op->outputs) depends[static_cast<size_t>(out)] = is_float(g.dtype(out));
  }

  std::map<int, int> grads;  // tensor -> its accumulated gradient
  grads[loss] = filled_like(g, loss, 1.0f);
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    const fb::OpT& op = **it;
    GradContext ctx{g, op, {}, {}, {}};
    bool any_grad = false;
    for (int out : op.outputs) {
      auto found = grads.find(out);
      ctx.grad_outputs.push_back(found == grads.end() ? -1 : found->second);
      any_grad = any_grad || found != grads.end();
    }
    bool any_needed = false;
    for (int in : op.inputs) {
      bool need = in >= 0 && depends[static_cast<size_t>(in)] && is_float(g.dtype(in));
      ctx.needs.push_back(need);
      any_needed = any_needed || need;
    }
    if (!any_grad || !any_needed) continue;
    if (op.fused && op.fused->kind != fb::ActivationKind::None) {
      return internal_error(op_label(op) + ": gradient: fused activation must be split into its own op first");
    }
    const GradBuilder* builder = find_grad_builder(op.type);
    if (!builder) {
      return unsupported(op_label(op) + ": no gradient builder for op type " + op_type_name(op.type) +
                         " (needed to train the tensors before it)");
    }
    // Builders may assume every output has a gradient: fill the missing ones with zeros.
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      if (ctx.grad_outputs[i] < 0 && is_float(g.dtype(op.outputs[i]))) {
        ctx.grad_outputs[i] = filled_like(g, op.outputs[i], 0.0f);
      }
    }
    ctx.grad_inputs.assign(op.inputs.size(), -1);
    MOTE_RETURN_IF_ERROR(builder->build(ctx));
    MOTE_RETURN_IF_ERROR(g.status());
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      int gi = ctx.grad_inputs[i];
      if (!ctx.needs[i]) continue;
      if (gi < 0) return internal_error(op_label(op) + ": gradient builder gave no gradient for input " + std::to_string(i));
      int in = op.inputs[i];
      if (g.shape(gi) != g.shape(in)) {
        return internal_error(op_label(op) + ": gradient of input " + std::to_string(i) + " has shape " +
                              shape_to_string(g.shape(gi)) + ", the input " + shape_to_string(g.shape(in)));
      }
      auto found = grads.find(in);
      grads[in] = found == grads.end() ? gi : g.add(found->second, gi);
    }
    MOTE_RETURN_IF_ERROR(g.status());
  }

  std::vector<int> result;
  for (int t : wrt) {
    auto found = grads.find(t);
    result.push_back(found != grads.end() ? found->second : filled_like(g, t, 0.0f));
  }
  MOTE_RETURN_IF_ERROR(g.status());
  return result;
}

}  // namespace mote
