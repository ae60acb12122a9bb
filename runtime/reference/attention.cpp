// Reference Attention: one query row at a time, in double, in the order of
// ONNX's definition (scores, soft cap, additive bias from mask, causal and
// padding rules, softmax, weighted sum of V). A row whose bias is -inf
// everywhere attends to nothing and gives zeros. The CPU backend's kernel
// (runtime/cpu/attention.cpp) hands the forms it does not optimise to this one.
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/attention.hpp"

namespace mote::reference {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Element (b, h, s, e) of Q, K or V: 4-D [batch, heads, seq, size] or 3-D
// [batch, seq, heads * size].
struct HeadView {
  const Tensor* t = nullptr;
  bool three_d = false;
  int64_t heads = 0, len = 0, size = 0;

  template <class T>
  double at(int64_t b, int64_t h, int64_t s, int64_t e) const {
    const int64_t i = three_d ? ((b * len + s) * heads + h) * size + e : ((b * heads + h) * len + s) * size + e;
    return static_cast<double>(t->data<T>()[i]);
  }
};

// The additive bias of the attention mask at (b, h, i, j), or 0 without one.
// A bool mask adds 0 where true and -inf where false; the mask's last
// dimension, when shorter than the keys, counts as padded with -inf/false.
template <class T>
double mask_bias(const Tensor* mask, const std::vector<int64_t>& strides, int64_t b, int64_t h, int64_t i, int64_t j) {
  if (!mask) return 0.0;
  if (j >= mask->shape().back()) return kNegInf;
  const int64_t index[4] = {b, h, i, j};
  int64_t offset = 0;
  for (size_t d = 0; d < 4; ++d) offset += index[d] * strides[d];
  if (mask->dtype() == DType::Bool) return mask->data<bool>()[offset] ? 0.0 : kNegInf;
  return static_cast<double>(mask->data<T>()[offset]);
}

template <class T>
Status attention_typed(KernelContext& ctx) {
  const auto& a = attrs<fb::AttentionAttrsT>(ctx.op);
  const Tensor* past_key = ctx.has_input(4) ? &ctx.in(4) : nullptr;
  const Tensor* past_value = ctx.has_input(5) ? &ctx.in(5) : nullptr;
  auto geometry = attention_geometry(a, ctx.in(0).shape(), ctx.in(1).shape(), ctx.in(2).shape(),
                                     past_key ? &past_key->shape() : nullptr, past_value ? &past_value->shape() : nullptr);
  if (!geometry.ok()) return ctx.fail(geometry.status().message());
  const AttentionGeometry& g = *geometry;
  const HeadView q{&ctx.in(0), g.three_d, g.q_heads, g.q_len, g.head_size};
  const HeadView k{&ctx.in(1), g.three_d, g.kv_heads, g.kv_len, g.head_size};
  const HeadView v{&ctx.in(2), g.three_d, g.kv_heads, g.kv_len, g.v_head_size};
  const HeadView pk{past_key, false, g.kv_heads, g.past_len, g.head_size};
  const HeadView pv{past_value, false, g.kv_heads, g.past_len, g.v_head_size};
  const int64_t total = g.total_len();

  // Key / value element of position j of the concatenated cache.
  auto key = [&](int64_t b, int64_t h, int64_t j, int64_t e) {
    return j < g.past_len ? pk.at<T>(b, h, j, e) : k.at<T>(b, h, j - g.past_len, e);
  };
  auto value = [&](int64_t b, int64_t h, int64_t j, int64_t e) {
    return j < g.past_len ? pv.at<T>(b, h, j, e) : v.at<T>(b, h, j - g.past_len, e);
  };

  // present_key / present_value: the cache with the new keys appended.
  for (int out = 1; out <= 2; ++out) {
    if (ctx.outputs.size() <= static_cast<size_t>(out) || ctx.outputs[static_cast<size_t>(out)] == nullptr) continue;
    const int64_t size = out == 1 ? g.head_size : g.v_head_size;
    T* dst = ctx.out(static_cast<size_t>(out)).template data<T>();
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t h = 0; h < g.kv_heads; ++h)
        for (int64_t j = 0; j < total; ++j)
          for (int64_t e = 0; e < size; ++e)
            *dst++ = static_cast<T>(out == 1 ? key(b, h, j, e) : value(b, h, j, e));
  }

  const Tensor* mask = ctx.has_input(3) ? &ctx.in(3) : nullptr;
  std::vector<int64_t> mask_strides;
  if (mask) {
    // Strides over the mask as stored (its own last dimension), broadcast to
    // the scores' rank; positions past its end are handled by mask_bias.
    Shape target = g.scores_shape();
    target.back() = mask->shape().back();
    mask_strides = broadcast_strides(mask->shape(), target);
  }
  const Tensor* nonpad = ctx.has_input(6) ? &ctx.in(6) : nullptr;
  // ONNX scales Q and K each by sqrt(scale), rounded to the input type.
  const double scale = a.scale != 0.0f ? a.scale : 1.0 / std::sqrt(static_cast<double>(g.head_size));
  const double root = static_cast<double>(static_cast<T>(std::sqrt(scale)));
  const int64_t group = g.q_heads / g.kv_heads;
  Tensor& y = ctx.out(0);
  T* scores_out = ctx.outputs.size() > 3 && ctx.outputs[3] ? ctx.out(3).template data<T>() : nullptr;

  std::vector<double> logits(static_cast<size_t>(total)), bias(static_cast<size_t>(total));
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t h = 0; h < g.q_heads; ++h) {
      const int64_t kvh = h / group;
      for (int64_t i = 0; i < g.q_len; ++i) {
        // The causal frontier: query i sees key j when j <= i + offset.
        const int64_t offset = nonpad && !past_key ? nonpad->data<int64_t>()[b] - g.q_len : g.past_len;
        double bias_max = kNegInf;
        for (int64_t j = 0; j < total; ++j) {
          double s = 0.0;
          for (int64_t e = 0; e < g.head_size; ++e) {
            s += static_cast<double>(static_cast<T>(q.at<T>(b, h, i, e) * root)) *
                 static_cast<double>(static_cast<T>(key(b, kvh, j, e) * root));
          }
          if (a.softcap > 0.0f) s = a.softcap * std::tanh(s / a.softcap);
          double bj = mask_bias<T>(mask, mask_strides, b, h, i, j);
          if (a.is_causal && j > i + offset) bj = kNegInf;
          if (nonpad && j >= nonpad->data<int64_t>()[b]) bj = kNegInf;
          logits[static_cast<size_t>(j)] = s;
          bias[static_cast<size_t>(j)] = bj;
          bias_max = std::max(bias_max, bj);
        }
        const int64_t row = ((b * g.q_heads + h) * g.q_len + i) * total;
        double max_logit = kNegInf;
        for (int64_t j = 0; j < total; ++j) {
          if (scores_out && a.qk_matmul_output_mode <= 1) scores_out[row + j] = static_cast<T>(logits[static_cast<size_t>(j)]);
          logits[static_cast<size_t>(j)] += bias[static_cast<size_t>(j)];
          if (scores_out && a.qk_matmul_output_mode == 2) scores_out[row + j] = static_cast<T>(logits[static_cast<size_t>(j)]);
          max_logit = std::max(max_logit, logits[static_cast<size_t>(j)]);
        }
        const bool masked_row = bias_max == kNegInf;
        double sum = 0.0;
        for (int64_t j = 0; j < total; ++j) {
          double& p = logits[static_cast<size_t>(j)];
          p = masked_row || max_logit == kNegInf ? 0.0 : std::exp(p - max_logit);
          sum += p;
        }
        for (int64_t j = 0; j < total; ++j) {
          double& p = logits[static_cast<size_t>(j)];
          p = sum > 0.0 ? static_cast<double>(static_cast<T>(p / sum)) : 0.0;
          if (scores_out && a.qk_matmul_output_mode == 3) scores_out[row + j] = static_cast<T>(p);
        }
        for (int64_t e = 0; e < g.v_head_size; ++e) {
          double acc = 0.0;
          for (int64_t j = 0; j < total; ++j) acc += logits[static_cast<size_t>(j)] * value(b, kvh, j, e);
          const int64_t at = g.three_d ? (b * g.q_len + i) * g.q_heads * g.v_head_size + h * g.v_head_size + e
                                       : ((b * g.q_heads + h) * g.q_len + i) * g.v_head_size + e;
          y.data<T>()[at] = static_cast<T>(acc);
        }
      }
    }
  }
  return {};
}

Status attention(KernelContext& ctx) {
  switch (ctx.in(0).dtype()) {
    case DType::F32: return attention_typed<float>(ctx);
    case DType::F64: return attention_typed<double>(ctx);
    default: return ctx.fail(std::string("unsupported dtype ") + dtype_name(ctx.in(0).dtype()));
  }
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(Attention, mote::reference::attention);
