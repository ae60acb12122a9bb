// Reference NegativeLogLikelihoodLoss, accumulated in double; the CPU
// backend runs it too. A target outside [0, C) that is not ignore_index is
// an error naming it, not a read out of bounds.
#include <string>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"

namespace mote::reference {
namespace {

template <class T>
Status nll_loss_typed(KernelContext& ctx) {
  const Tensor& input = ctx.in(0);
  const Tensor& target = ctx.in(1);
  const T* weight = ctx.has_input(2) ? ctx.in(2).data<T>() : nullptr;
  const auto& a = attrs<fb::LossAttrsT>(ctx.op);
  const int64_t n = input.dim(0);
  const int64_t classes = input.dim(1);
  const int64_t inner = n == 0 || classes == 0 ? 0 : input.numel() / (n * classes);
  std::vector<double> losses(static_cast<size_t>(target.numel()));
  double loss_sum = 0.0, weight_sum = 0.0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t t = b * inner + d;
      const int64_t c = target.dtype() == DType::I64 ? target.data<int64_t>()[t] : target.data<int32_t>()[t];
      if (a.has_ignore_index && c == a.ignore_index) continue;  // loss 0, weight 0
      if (c < 0 || c >= classes) {
        return ctx.fail("target element " + std::to_string(t) + " is " + std::to_string(c) + ", outside [0, " +
                        std::to_string(classes) + ")");
      }
      const double w = weight ? static_cast<double>(weight[c]) : 1.0;
      const double loss = -static_cast<double>(input.data<T>()[(b * classes + c) * inner + d]) * w;
      losses[static_cast<size_t>(t)] = loss;
      loss_sum += loss;
      weight_sum += w;
    }
  }
  T* out = ctx.out(0).data<T>();
  switch (a.reduction) {
    case fb::LossReduction::None:
      for (size_t i = 0; i < losses.size(); ++i) out[i] = static_cast<T>(losses[i]);
      break;
    case fb::LossReduction::Sum: out[0] = static_cast<T>(loss_sum); break;
    default: out[0] = static_cast<T>(loss_sum / weight_sum); break;  // 0 / 0 is NaN, as in ONNX's reference
  }
  return {};
}

Status nll_loss(KernelContext& ctx) {
  switch (ctx.in(0).dtype()) {
    case DType::F32: return nll_loss_typed<float>(ctx);
    case DType::F64: return nll_loss_typed<double>(ctx);
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(NegativeLogLikelihoodLoss, mote::reference::nll_loss);
