// Optimised normalisation kernels. Each folds its statistics and parameters
// into one multiply-add per element (y = x * a + b per plane for batch and
// instance norm, a per-element scale/bias row for layer norm), computed with
// SIMD rows and spread over the pool one plane or row per task.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/row_simd.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/axis_split.hpp"

namespace mote::cpu {
namespace {

// Elements below which splitting work over threads costs more than it saves.
constexpr int64_t kGrainElements = 1 << 14;

Status check_all_f32(KernelContext& ctx) {
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.has_input(i) && ctx.in(i).dtype() != DType::F32) {
      return ctx.fail("input " + std::to_string(i) + " has unsupported dtype " + dtype_name(ctx.in(i).dtype()));
    }
  }
  return {};
}

int64_t grain_for(int64_t elements_per_item) {
  return std::max<int64_t>(1, kGrainElements / std::max<int64_t>(elements_per_item, 1));
}

// Training mode: per channel, the batch mean (SIMD sums of its N planes) and
// population variance (sums of squared deviations from that mean), and the
// updated running statistics when the node asks for them.
void batch_statistics(KernelContext& ctx, const AxisSplit& s, std::vector<double>& mean, std::vector<double>& var) {
  const auto& a = attrs<fb::NormAttrsT>(ctx.op);
  const float* in = ctx.in(0).data<float>();
  const float* input_mean = ctx.in(3).data<float>();
  const float* input_var = ctx.in(4).data<float>();
  float* running_mean = ctx.outputs.size() > 1 && ctx.outputs[1] ? ctx.out(1).data<float>() : nullptr;
  float* running_var = ctx.outputs.size() > 2 && ctx.outputs[2] ? ctx.out(2).data<float>() : nullptr;
  const double count = static_cast<double>(s.outer * s.inner);
  ctx.pool->parallel_for(s.axis, grain_for(s.outer * s.inner), [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double sum = 0.0, squares = 0.0;
      for (int64_t n = 0; n < s.outer; ++n)
        sum += simd::reduce_row(simd::RowOp::kSum, in + (n * s.axis + c) * s.inner, s.inner);
      mean[c] = sum / count;
      for (int64_t n = 0; n < s.outer; ++n) {
        squares += simd::sum_squared_deviation(in + (n * s.axis + c) * s.inner, s.inner, static_cast<float>(mean[c]));
      }
      var[c] = squares / count;
      if (running_mean) running_mean[c] = static_cast<float>(input_mean[c] * a.momentum + mean[c] * (1.0 - a.momentum));
      if (running_var) running_var[c] = static_cast<float>(input_var[c] * a.momentum + var[c] * (1.0 - a.momentum));
    }
  });
}

Status batch_norm(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_all_f32(ctx));
  const Tensor& x = ctx.in(0);
  const AxisSplit s = split_at_axis(x.shape(), 1);
  const float* scale = ctx.in(1).data<float>();
  const float* bias = ctx.in(2).data<float>();
  const auto& attr = attrs<fb::NormAttrsT>(ctx.op);
  std::vector<double> mean(ctx.in(3).data<float>(), ctx.in(3).data<float>() + s.axis);
  std::vector<double> var(ctx.in(4).data<float>(), ctx.in(4).data<float>() + s.axis);
  if (attr.training_mode) batch_statistics(ctx, s, mean, var);
  // Folded per channel: y = x * a[c] + b[c].
  std::vector<float> a(static_cast<size_t>(s.axis)), b(static_cast<size_t>(s.axis));
  for (int64_t c = 0; c < s.axis; ++c) {
    const double ac = scale[c] / std::sqrt(var[c] + attr.epsilon);
    a[c] = static_cast<float>(ac);
    b[c] = static_cast<float>(bias[c] - mean[c] * ac);
  }
  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();
  if (s.inner == 1) {
    // N x C: each row of channels is one multiply-add with vectors a and b.
    ctx.pool->parallel_for(s.outer, grain_for(s.axis), [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        simd::normalize_row(in + n * s.axis, s.axis, 0.0f, 1.0f, a.data(), b.data(), out + n * s.axis);
      }
    });
    return {};
  }
  ctx.pool->parallel_for(s.outer * s.axis, grain_for(s.inner), [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % s.axis;
      simd::scale_shift_row(in + plane * s.inner, s.inner, a[c], b[c], out + plane * s.inner);
    }
  });
  return {};
}

struct Moments {
  float mean;
  float variance;
};

// Two passes: the mean, then the mean squared deviation from it, which stays
// accurate when the mean is large against the spread (E[x^2] - E[x]^2 does not).
Moments moments(const float* x, int64_t n) {
  if (n == 0) return {0.0f, 0.0f};
  const float mean = simd::reduce_row(simd::RowOp::kSum, x, n) / static_cast<float>(n);
  return {mean, simd::sum_squared_deviation(x, n, mean) / static_cast<float>(n)};
}

Status instance_norm(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_all_f32(ctx));
  const Tensor& x = ctx.in(0);
  const AxisSplit s = split_at_axis(x.shape(), 1);
  const float* scale = ctx.in(1).data<float>();
  const float* bias = ctx.in(2).data<float>();
  const float epsilon = attrs<fb::NormAttrsT>(ctx.op).epsilon;
  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();
  ctx.pool->parallel_for(s.outer * s.axis, grain_for(s.inner), [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % s.axis;
      const float* src = in + plane * s.inner;
      const Moments m = moments(src, s.inner);
      const float a = scale[c] / std::sqrt(m.variance + epsilon);
      simd::scale_shift_row(src, s.inner, a, bias[c] - m.mean * a, out + plane * s.inner);
    }
  });
  return {};
}

// A Scale or B input as one dense value per element of a normalised row;
// the common full-size parameter is used in place, others are expanded.
const float* dense_parameter(const Tensor& t, const Shape& normalized, std::vector<float>& storage) {
  const int64_t row_size = shape_numel(normalized);
  if (t.numel() == row_size) return t.data<float>();
  storage.resize(static_cast<size_t>(row_size));
  const std::vector<int64_t> stride = broadcast_strides(t.shape(), normalized);
  std::vector<int64_t> coord(normalized.size(), 0);
  int64_t offset = 0;
  for (int64_t j = 0; j < row_size; ++j) {
    storage[static_cast<size_t>(j)] = t.data<float>()[offset];
    for (size_t d = normalized.size(); d-- > 0;) {
      offset += stride[d];
      if (++coord[d] < normalized[d]) break;
      offset -= stride[d] * coord[d];
      coord[d] = 0;
    }
  }
  return storage.data();
}

Status layer_norm(KernelContext& ctx) {
  MOTE_RETURN_IF_ERROR(check_all_f32(ctx));
  const Tensor& x = ctx.in(0);
  const auto& attr = attrs<fb::NormAttrsT>(ctx.op);
  auto axis = normalize_axis(attr.axis, x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const Shape normalized(x.shape().begin() + *axis, x.shape().end());
  const int64_t rows = dims_product(x.shape(), 0, static_cast<size_t>(*axis));
  const int64_t row_size = shape_numel(normalized);
  std::vector<float> scale_storage, bias_storage;
  const float* scale = dense_parameter(ctx.in(1), normalized, scale_storage);
  const float* bias = ctx.has_input(2) ? dense_parameter(ctx.in(2), normalized, bias_storage) : nullptr;
  float* mean_out = ctx.outputs.size() > 1 && ctx.outputs[1] ? ctx.out(1).data<float>() : nullptr;
  float* inv_std_out = ctx.outputs.size() > 2 && ctx.outputs[2] ? ctx.out(2).data<float>() : nullptr;
  const float* in = x.data<float>();
  float* out = ctx.out(0).data<float>();
  ctx.pool->parallel_for(rows, grain_for(row_size), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* src = in + r * row_size;
      const Moments m = moments(src, row_size);
      const float inv_std = 1.0f / std::sqrt(m.variance + attr.epsilon);
      simd::normalize_row(src, row_size, m.mean, inv_std, scale, bias, out + r * row_size);
      if (mean_out) mean_out[r] = m.mean;
      if (inv_std_out) inv_std_out[r] = inv_std;
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(BatchNormalization, mote::cpu::batch_norm);
MOTE_CPU_KERNEL(InstanceNormalization, mote::cpu::instance_norm);
MOTE_CPU_KERNEL(LayerNormalization, mote::cpu::layer_norm);
