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

// The recomputed copies of checkpointed segments, made on demand.
class Recompute {
 public:
  Recompute(TrainGraph& g, const std::vector<fb::OpT*>& forward, const std::vector<int>& segment)
      : g_(g), forward_(forward), segment_(segment), copies_(forward.size(), nullptr) {}

  // The op whose tensors the gradient builder of forward op `index` reads:
  // its recomputed copy when it belongs to a segment (adding the whole
  // segment again on first use), else the op itself.
  const fb::OpT* op_for_backward(size_t index) {
    const int seg = index < segment_.size() ? segment_[index] : -1;
    if (seg < 0) return forward_[index];
    if (!copies_[index]) add_segment(seg);
    return copies_[index];
  }

 private:
  void add_segment(int seg) {
    for (size_t j = 0; j < forward_.size() && j < segment_.size(); ++j) {
      if (segment_[j] != seg) continue;
      const fb::OpT& op = *forward_[j];
      std::vector<int> inputs;
      for (int in : op.inputs) {
        auto found = renamed_.find(in);
        inputs.push_back(found == renamed_.end() ? in : found->second);
      }
      const std::vector<int> outs = g_.op(op.type, inputs, static_cast<int>(op.outputs.size()), &op,
                                          op.name + "/recomputed");
      copies_[j] = g_.ops().back();
      for (size_t k = 0; k < outs.size(); ++k) renamed_[op.outputs[k]] = outs[k];
    }
  }

  TrainGraph& g_;
  const std::vector<fb::OpT*>& forward_;
  const std::vector<int>& segment_;
  std::vector<const fb::OpT*> copies_;
  std::map<int, int> renamed_;  // forward tensor -> its recomputed copy
};

}  // namespace

Result<std::vector<int>> build_gradients(TrainGraph& g, int loss, const std::vector<int>& wrt,
                                         const std::vector<int>& recompute_segment, const GradientReady& on_final) {
  MOTE_RETURN_IF_ERROR(g.status());
  // The forward ops: the backward ops appended below must not be revisited.
  const std::vector<fb::OpT*> forward = g.ops();
  Recompute recompute(g, forward, recompute_segment);

  // Which tensors depend on a requested one: only their gradients are built.
  std::vector<bool> depends(static_cast<size_t>(g.builder().tensor_count()), false);
  for (int t : wrt) depends[static_cast<size_t>(t)] = true;
  for (const fb::OpT* op : forward) {
    bool any = false;
    for (int in : op->inputs) any = any || (in >= 0 && depends[static_cast<size_t>(in)]);
    if (!any) continue;
    for (int out : op->outputs) depends[static_cast<size_t>(out)] = is_float(g.dtype(out));
  }

  // Per wrt tensor, the first forward op reading it: once the reverse walk
  // has built that op's gradients, the wrt gradient is complete.
  std::vector<size_t> first_reader(wrt.size(), forward.size());
  for (size_t k = 0; k < wrt.size(); ++k) {
    for (size_t j = 0; j < forward.size() && first_reader[k] == forward.size(); ++j) {
      for (int in : forward[j]->inputs) first_reader[k] = in == wrt[k] ? j : first_reader[k];
    }
  }
  std::vector<int> result(wrt.size(), -1);
  auto finish = [&](size_t k, int grad) {
    result[k] = grad;
    if (on_final) on_final(k, grad);
  };

  std::map<int, int> grads;  // tensor -> its accumulated gradient
  grads[loss] = filled_like(g, loss, 1.0f);
  for (size_t index = forward.size(); index-- > 0;) {
    // Gradients are keyed by the forward tensors (`op`); the builder reads
    // the tensors of `source`, the recomputed copy in a checkpointed segment.
    const fb::OpT& op = *forward[index];
    std::vector<int> grad_outputs;
    std::vector<bool> needs;
    bool any_grad = false;
    for (int out : op.outputs) {
      auto found = grads.find(out);
      grad_outputs.push_back(found == grads.end() ? -1 : found->second);
      any_grad = any_grad || found != grads.end();
    }
    bool any_needed = false;
    for (int in : op.inputs) {
      bool need = in >= 0 && depends[static_cast<size_t>(in)] && is_float(g.dtype(in));
      needs.push_back(need);
      any_needed = any_needed || need;
    }
    if (!any_grad || !any_needed) continue;
    const fb::OpT* source = recompute.op_for_backward(index);
    MOTE_RETURN_IF_ERROR(g.status());
    GradContext ctx{g, *source, std::move(grad_outputs), std::move(needs), {}};
    if (op.fused && op.fused->kind != fb::ActivationKind::None) {
      return internal_error(op_label(op) + ": gradient: fused activation must be split into its own op first");
    }
    if (op.type == fb::OpType::Conv && op.inputs.size() > 3 && op.inputs[3] >= 0) {
      return internal_error(op_label(op) + ": gradient: fused residual must be split into its own Add first");
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
    for (size_t k = 0; k < wrt.size(); ++k) {
      auto found = grads.find(wrt[k]);
      if (first_reader[k] == index && result[k] < 0 && found != grads.end()) finish(k, found->second);
    }
    MOTE_RETURN_IF_ERROR(g.status());
  }

  // What no op on the loss's path reads has a zero gradient.
  for (size_t k = 0; k < wrt.size(); ++k) {
    if (result[k] < 0) {
      auto found = grads.find(wrt[k]);
      finish(k, found != grads.end() ? found->second : filled_like(g, wrt[k], 0.0f));
    }
  }
  MOTE_RETURN_IF_ERROR(g.status());
  return result;
}

}  // namespace mote
