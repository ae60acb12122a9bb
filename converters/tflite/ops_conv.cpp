// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED and
// BATCH_MATMUL. Filters are permuted once at conversion time: TFLite's
// [O, KH, KW, I] to Mote's [O, I, KH, KW]; depthwise [1, KH, KW, C*M] to
// [C*M, 1, KH, KW] (channel c*M + m in both, so a grouped Conv with C groups);
// a transposed convolution's [O, KH, KW, I] to [I, O, KH, KW].
#include "converters/tflite/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_conv_2d(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::Conv2DOptions>();
  if (!o) return ctx.status();
  const Shape x = ctx.input_shape(0), w = ctx.input_shape(1);
  if (x.size() != 4 || w.size() != 4 || w[3] <= 0) return ctx.invalid("expects a 4-D input and a 4-D filter");
  if (x[3] % w[3] != 0) return ctx.invalid("input channels " + std::to_string(x[3]) + " are not a multiple of the filter's " + std::to_string(w[3]));
  fb::ConvAttrsT a;
  a.kernel_shape = {w[1], w[2]};
  a.strides = {o->stride_h(), o->stride_w()};
  a.dilations = {o->dilation_h_factor(), o->dilation_w_factor()};
  a.auto_pad = auto_pad(o->padding());
  a.group = x[3] / w[3];
  std::vector<int> inputs = {ctx.input(0, Layout::kNchw), ctx.permuted_input(1, {0, 3, 1, 2})};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::Conv, inputs, {ctx.output_before(o->fused_activation_function(), 0, Layout::kNchw)}, a);
  return ctx.status();
}

Status map_depthwise_conv_2d(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::DepthwiseConv2DOptions>();
  if (!o) return ctx.status();
  const Shape x = ctx.input_shape(0), w = ctx.input_shape(1);
  if (x.size() != 4 || w.size() != 4 || w[0] != 1) return ctx.invalid("expects a 4-D input and a [1, KH, KW, C*M] filter");
  if (x[3] <= 0 || w[3] % x[3] != 0) return ctx.invalid("filter channels are not a multiple of the input's");
  fb::ConvAttrsT a;
  a.kernel_shape = {w[1], w[2]};
  a.strides = {o->stride_h(), o->stride_w()};
  a.dilations = {o->dilation_h_factor(), o->dilation_w_factor()};
  a.auto_pad = auto_pad(o->padding());
  a.group = x[3];
  std::vector<int> inputs = {ctx.input(0, Layout::kNchw), ctx.permuted_input(1, {3, 0, 1, 2})};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::Conv, inputs, {ctx.output_before(o->fused_activation_function(), 0, Layout::kNchw)}, a);
  return ctx.status();
}

// Inputs: output shape (NHWC), filter [O, KH, KW, I], input, bias. The pads
// come from the shapes: SAME splits the total with the extra at the end, as
// TFLite does; what the total cannot reach becomes output padding.
Status map_transpose_conv(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::TransposeConvOptions>();
  if (!o) return ctx.status();
  const Shape x = ctx.input_shape(2), w = ctx.input_shape(1), y = ctx.output_shape(0);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return ctx.invalid("expects 4-D input, filter and output");
  fb::ConvAttrsT a;
  a.kernel_shape = {w[1], w[2]};
  a.strides = {o->stride_h(), o->stride_w()};
  const int64_t in[2] = {x[1], x[2]}, out[2] = {y[1], y[2]};
  std::vector<int64_t> begin(2, 0), end(2, 0);
  a.output_padding = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const int64_t full = a.strides[static_cast<size_t>(k)] * (in[k] - 1) + a.kernel_shape[static_cast<size_t>(k)];
    const int64_t total = full - out[k];
    if (o->padding() == tfl::Padding::SAME && total >= 0) {
      begin[static_cast<size_t>(k)] = total / 2;
      end[static_cast<size_t>(k)] = total - total / 2;
    } else if (total <= 0) {
      a.output_padding[static_cast<size_t>(k)] = -total;
    } else {
      return ctx.invalid("VALID output " + std::to_string(out[k]) + " is smaller than the convolution's " + std::to_string(full));
    }
  }
  a.pads = {begin[0], begin[1], end[0], end[1]};
  std::vector<int> inputs = {ctx.input(2, Layout::kNchw), ctx.permuted_input(1, {3, 0, 1, 2})};
  if (ctx.has_input(3)) inputs.push_back(ctx.input(3));
  ctx.emit(fb::OpType::ConvTranspose, inputs, {ctx.output_before(o->fused_activation_function(), 0, Layout::kNchw)}, a);
  return ctx.status();
}

// y = x W^T + b with x flattened to [-1, in] (NHWC order, as TFLite
// flattens); keep_num_dims restores x's leading dimensions.
Status map_fully_connected(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::FullyConnectedOptions>();
  if (!o) return ctx.status();
  if (o->weights_format() != tfl::FullyConnectedOptionsWeightsFormat::DEFAULT) {
    return ctx.unsupported("shuffled weights (SHUFFLED4x16INT8) are not supported");
  }
  const Shape x = ctx.input_shape(0), w = ctx.input_shape(1);
  if (w.size() != 2 || x.empty()) return ctx.invalid("expects an input of rank 1 or more and a 2-D weight matrix");
  int a = ctx.input(0);
  if (x.size() != 2) {
    int flat = ctx.temp("flattened");
    ctx.emit(fb::OpType::Reshape, {a, ctx.constant_i64({-1, w[1]}, "flat_shape")}, {flat});
    a = flat;
  }
  fb::GemmAttrsT g;
  g.trans_b = true;
  // Constant int8 weights stay int8 behind a DequantizeLinear (as a
  // Conv's), which fold_qdq makes a QLinearMatMul with the quantised input
  // and output; dequantised here, the classifier of an int8 MobileNetV2
  // stayed a float Gemm (0.23 of its 3.3 ms).
  const int weights = ctx.input_is_constant(1) ? ctx.permuted_input(1, {0, 1}) : ctx.input(1);
  std::vector<int> inputs = {a, weights};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  const bool restore = o->keep_num_dims() && x.size() != 2;
  int y = restore ? ctx.temp("gemm") : ctx.output_before(o->fused_activation_function(), 0);
  ctx.emit(fb::OpType::Gemm, inputs, {y}, g);
  if (restore) {
    std::vector<int64_t> shape(x.begin(), x.end() - 1);
    shape.push_back(w[0]);
    ctx.emit(fb::OpType::Reshape, {y, ctx.constant_i64(shape, "shape")},
             {ctx.output_before(o->fused_activation_function(), 0)});
  }
  return ctx.status();
}

// The last two axes of input i swapped.
int swap_last_two(TfliteOpContext& ctx, int i) {
  const size_t rank = ctx.input_shape(i).size();
  std::vector<int64_t> perm(rank);
  for (size_t k = 0; k < rank; ++k) perm[k] = static_cast<int64_t>(k);
  if (rank >= 2) std::swap(perm[rank - 1], perm[rank - 2]);
  return ctx.permuted_input(i, perm);
}

Status map_batch_matmul(TfliteOpContext& ctx) {
  const auto* o = ctx.options<tfl::BatchMatMulOptions>(false);
  const bool adj_x = o && o->adj_x(), adj_y = o && o->adj_y();
  int a = adj_x ? swap_last_two(ctx, 0) : ctx.input(0);
  int b = adj_y ? swap_last_two(ctx, 1) : ctx.input(1);
  ctx.emit(fb::OpType::MatMul, {a, b}, {ctx.output(0)});
  return ctx.status();
}

}  // namespace

MOTE_TFLITE_OP(CONV_2D, map_conv_2d);
MOTE_TFLITE_OP(DEPTHWISE_CONV_2D, map_depthwise_conv_2d);
MOTE_TFLITE_OP(TRANSPOSE_CONV, map_transpose_conv);
MOTE_TFLITE_OP(FULLY_CONNECTED, map_fully_connected);
MOTE_TFLITE_OP(BATCH_MATMUL, map_batch_matmul);

}  // namespace mote::convert
