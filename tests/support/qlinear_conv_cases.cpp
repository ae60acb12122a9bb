#include "tests/support/qlinear_conv_cases.hpp"

#include <cmath>
#include <vector>

#include "runtime/ops/conv_geometry.hpp"
#include "tests/ops/fused_activation_util.hpp"

namespace mote::test {
namespace {

double low(DType d) { return d == DType::I8 ? -128 : 0; }
double high(DType d) { return d == DType::I8 ? 128 : 256; }

}  // namespace

Tensor scalar_of(DType dtype, double value) {
  Tensor t = Tensor::zeros(dtype, {1});
  switch (dtype) {
    case DType::F32: t.data<float>()[0] = static_cast<float>(value); break;
    case DType::I8: t.data<int8_t>()[0] = static_cast<int8_t>(value); break;
    case DType::U8: t.data<uint8_t>()[0] = static_cast<uint8_t>(value); break;
    default: break;
  }
  return t;
}

std::optional<QLinearConvCase> qlinear_conv_case(const Shape& x, const Shape& w, const fb::ConvAttrsT& a,
                                                 const QuantCase& q, const fb::FusedActivationT* act,
                                                 uint32_t seed) {
  auto g = resolve_conv(a, x, w);
  if (!g.ok()) return std::nullopt;
  const int64_t m = w[0];
  QLinearConvCase c;
  c.op = make_op(fb::OpType::QLinearConv, a);
  if (act) c.op = with_fused(std::move(c.op), *act);
  const int64_t depth = shape_numel(w) / m;
  // Scales that keep the outputs spread over the type's range: the sum of
  // `depth` products of values up to 128 has a spread of about 128^2 sqrt(depth).
  const double w_peak = q.seven_bit_weights ? 64.0 : 128.0;
  const double y_scale = 0.01 * 0.02 * 128.0 * w_peak * std::sqrt(static_cast<double>(depth)) / 64.0;
  Tensor w_scale = q.per_channel ? random_tensor(DType::F32, {m}, seed + 3, 0.01, 0.03) : scalar_of(DType::F32, 0.02);
  Tensor w_zero = q.per_channel ? random_tensor(q.w_type, {m}, seed + 4, low(q.w_type) / 8, high(q.w_type) / 8)
                                : scalar_of(q.w_type, q.w_type == DType::I8 ? 0 : 128);
  if (q.seven_bit_weights) w_zero = q.per_channel ? Tensor::zeros(DType::I8, {m}) : scalar_of(DType::I8, 0);
  const double w_low = q.seven_bit_weights ? -64 : low(q.w_type), w_high = q.seven_bit_weights ? 64 : high(q.w_type);
  c.inputs = {random_tensor(q.x_type, x, seed, low(q.x_type), high(q.x_type)),
              scalar_of(DType::F32, 0.01),
              scalar_of(q.x_type, q.x_type == DType::I8 ? 3 : 120),
              random_tensor(q.w_type, w, seed + 1, w_low, w_high),
              w_scale,
              w_zero,
              scalar_of(DType::F32, y_scale),
              scalar_of(q.y_type, q.y_type == DType::I8 ? -5 : 128)};
  if (q.bias) {
    c.inputs.push_back(random_tensor(DType::I32, {m}, seed + 2, -5000, 5000));
  } else if (q.residual != DType::F32) {
    c.inputs.push_back(std::nullopt);
  }
  if (q.residual != DType::F32) {
    // Over half the output's range, so that the sum and the clamp matter.
    c.inputs.push_back(random_tensor(q.residual, g->output_shape(), seed + 5, low(q.residual), high(q.residual)));
    c.inputs.push_back(scalar_of(DType::F32, y_scale * 0.6));
    c.inputs.push_back(scalar_of(q.residual, q.residual == DType::I8 ? 7 : 110));
  }
  c.label = "X " + shape_to_string(x) + " " + dtype_name(q.x_type) + ", W " + shape_to_string(w) + " " +
            dtype_name(q.w_type) + ", Y " + dtype_name(q.y_type) + (q.per_channel ? ", per channel" : "") +
            (act ? ", fused " + fused_name(*act) : "") +
            (q.residual != DType::F32 ? std::string(", residual ") + dtype_name(q.residual) : "") +
            (q.seven_bit_weights ? ", 7-bit weights" : "");
  return c;
}

int64_t bytes_off(const Tensor& actual, const Tensor& expected) {
  int64_t off = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    off += static_cast<const uint8_t*>(expected.raw())[i] != static_cast<const uint8_t*>(actual.raw())[i];
  }
  return off;
}

int64_t distinct_bytes(const Tensor& t) {
  std::vector<bool> seen(256, false);
  int64_t distinct = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const uint8_t v = static_cast<const uint8_t*>(t.raw())[i];
    distinct += !seen[v];
    seen[v] = true;
  }
  return distinct;
}

}  // namespace mote::test
