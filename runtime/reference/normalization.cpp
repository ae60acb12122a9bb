// Reference normalisation kernels: statistics in double, two passes (mean,
// then mean squared deviation), straight from the ONNX formulas.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/axis_split.hpp"
#include "runtime/reference/float_types.hpp"

namespace mote::reference {
namespace {

// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c], with the
// input mean/var, or in training mode the batch's own (population variance
// over N and the spatial dims); then running = input * momentum + batch * (1 - momentum).
template <class T>
Status batch_norm_typed(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const AxisSplit s = split_at_axis(x.shape(), 1);
  const T* scale = ctx.in(1).data<T>();
  const T* bias = ctx.in(2).data<T>();
  const T* input_mean = ctx.in(3).data<T>();
  const T* input_var = ctx.in(4).data<T>();
  const auto& a = attrs<fb::NormAttrsT>(ctx.op);
  const T* in = x.data<T>();
  auto at = [&](int64_t n, int64_t c, int64_t i) { return (n * s.axis + c) * s.inner + i; };
  std::vector<double> mean(input_mean, input_mean + s.axis), var(input_var, input_var + s.axis);
  if (a.training_mode) {
    const double count = static_cast<double>(s.outer * s.inner);
    for (int64_t c = 0; c < s.axis; ++c) {
      double sum = 0.0, squares = 0.0;
      for (int64_t n = 0; n < s.outer; ++n) {
        for (int64_t i = 0; i < s.inner; ++i) sum += in[at(n, c, i)];
      }
      mean[c] = sum / count;
      for (int64_t n = 0; n < s.outer; ++n) {
        for (int64_t i = 0; i < s.inner; ++i) squares += (in[at(n, c, i)] - mean[c]) * (in[at(n, c, i)] - mean[c]);
      }
      var[c] = squares / count;
      if (ctx.outputs.size() > 1) {
        ctx.out(1).data<T>()[c] = static_cast<T>(input_mean[c] * a.momentum + mean[c] * (1.0 - a.momentum));
      }
      if (ctx.outputs.size() > 2) {
        ctx.out(2).data<T>()[c] = static_cast<T>(input_var[c] * a.momentum + var[c] * (1.0 - a.momentum));
      }
    }
  }
  T* out = ctx.out(0).data<T>();
  for (int64_t n = 0; n < s.outer; ++n) {
    for (int64_t c = 0; c < s.axis; ++c) {
      for (int64_t i = 0; i < s.inner; ++i) {
        out[at(n, c, i)] =
            static_cast<T>((in[at(n, c, i)] - mean[c]) / std::sqrt(var[c] + a.epsilon) * scale[c] + bias[c]);
      }
    }
  }
  return {};
}

struct Moments {
  double mean;
  double variance;
};

template <class T>
Moments moments(const T* x, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const double mean = n ? sum / static_cast<double>(n) : 0.0;
  double squares = 0.0;
  for (int64_t i = 0; i < n; ++i) squares += (x[i] - mean) * (x[i] - mean);
  return {mean, n ? squares / static_cast<double>(n) : 0.0};
}

// Per (n, c): y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c] over the spatial dims.
template <class T>
Status instance_norm_typed(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const AxisSplit s = split_at_axis(x.shape(), 1);
  const T* scale = ctx.in(1).data<T>();
  const T* bias = ctx.in(2).data<T>();
  const double epsilon = attrs<fb::NormAttrsT>(ctx.op).epsilon;
  for (int64_t plane = 0; plane < s.outer * s.axis; ++plane) {
    const int64_t c = plane % s.axis;
    const T* in = x.data<T>() + plane * s.inner;
    T* out = ctx.out(0).data<T>() + plane * s.inner;
    const Moments m = moments(in, s.inner);
    for (int64_t i = 0; i < s.inner; ++i) {
      out[i] = static_cast<T>((in[i] - m.mean) / std::sqrt(m.variance + epsilon) * scale[c] + bias[c]);
    }
  }
  return {};
}

// Per row of the dims from `axis` on: y = (x - mean) * inv_std * Scale + B
// (LayerNormalization), or y = x / sqrt(mean(x^2) + epsilon) * Scale
// (RMSNormalization, kRms); Scale and B broadcast to those dims; Mean and
// InvStdDev optional outputs of LayerNormalization.
template <class T, bool kRms>
Status row_norm_typed(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const auto& a = attrs<fb::NormAttrsT>(ctx.op);
  auto axis = normalize_axis(a.axis, x.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  const Shape normalized(x.shape().begin() + *axis, x.shape().end());
  const int64_t rows = dims_product(x.shape(), 0, static_cast<size_t>(*axis));
  const int64_t row_size = shape_numel(normalized);
  const bool has_bias = !kRms && ctx.has_input(2);
  const std::vector<int64_t> scale_stride = broadcast_strides(ctx.in(1).shape(), normalized);
  const std::vector<int64_t> bias_stride =
      has_bias ? broadcast_strides(ctx.in(2).shape(), normalized) : std::vector<int64_t>();
  const std::vector<int64_t> own_stride = contiguous_strides(normalized);
  // Offset into a broadcast parameter of element j of a row.
  auto param_offset = [&](int64_t j, const std::vector<int64_t>& stride) {
    int64_t offset = 0;
    for (size_t d = 0; d < normalized.size(); ++d) offset += (j / own_stride[d] % normalized[d]) * stride[d];
    return offset;
  };
  for (int64_t r = 0; r < rows; ++r) {
    const T* in = x.data<T>() + r * row_size;
    T* out = ctx.out(0).data<T>() + r * row_size;
    double mean = 0.0, inv_std;
    if constexpr (kRms) {
      double squares = 0.0;
      for (int64_t j = 0; j < row_size; ++j) squares += static_cast<double>(in[j]) * in[j];
      inv_std = 1.0 / std::sqrt(squares / static_cast<double>(row_size) + a.epsilon);
    } else {
      const Moments m = moments(in, row_size);
      mean = m.mean;
      inv_std = 1.0 / std::sqrt(m.variance + a.epsilon);
    }
    for (int64_t j = 0; j < row_size; ++j) {
      double v = (in[j] - mean) * inv_std * ctx.in(1).data<T>()[param_offset(j, scale_stride)];
      if (has_bias) v += ctx.in(2).data<T>()[param_offset(j, bias_stride)];
      out[j] = static_cast<T>(v);
    }
    if (kRms) continue;
    if (ctx.outputs.size() > 1) ctx.out(1).data<T>()[r] = static_cast<T>(mean);
    if (ctx.outputs.size() > 2) ctx.out(2).data<T>()[r] = static_cast<T>(inv_std);
  }
  return {};
}

// Across channels: the window of `size` channels around c runs from
// c - floor((size - 1) / 2) to c + ceil((size - 1) / 2).
template <class T>
Status lrn_typed(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  const auto& a = attrs<fb::LrnAttrsT>(ctx.op);
  const int64_t channels = x.dim(1), plane = x.numel() / std::max<int64_t>(1, x.dim(0) * channels);
  const int64_t before = (a.size - 1) / 2, after = a.size - 1 - before;
  for (int64_t n = 0; n < x.dim(0); ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t p = 0; p < plane; ++p) {
        double squares = 0;
        for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
          const double v = x.data<T>()[(n * channels + k) * plane + p];
          squares += v * v;
        }
        const int64_t at = (n * channels + c) * plane + p;
        const double scale = std::pow(a.bias + a.alpha / static_cast<double>(a.size) * squares, a.beta);
        ctx.out(0).data<T>()[at] = static_cast<T>(x.data<T>()[at] / scale);
      }
    }
  }
  return {};
}

Status batch_norm(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return batch_norm_typed<decltype(type)>(ctx); });
}

Status instance_norm(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return instance_norm_typed<decltype(type)>(ctx); });
}

Status layer_norm(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return row_norm_typed<decltype(type), false>(ctx); });
}

Status lrn(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return lrn_typed<decltype(type)>(ctx); });
}

Status rms_norm(KernelContext& ctx) {
  return run_float_kernel(ctx, [&](auto type) { return row_norm_typed<decltype(type), true>(ctx); });
}

}  // namespace
}  // namespace mote::reference

MOTE_REF_KERNEL(BatchNormalization, mote::reference::batch_norm);
MOTE_REF_KERNEL(InstanceNormalization, mote::reference::instance_norm);
MOTE_REF_KERNEL(LayerNormalization, mote::reference::layer_norm);
MOTE_REF_KERNEL(RMSNormalization, mote::reference::rms_norm);
MOTE_REF_KERNEL(LRN, mote::reference::lrn);
