#include "converters/tflite/mapper_util.hpp"

#include "converters/tflite/tflite_tensors.hpp"

namespace mote::convert {

fb::AutoPad auto_pad(tfl::Padding padding) {
  return padding == tfl::Padding::SAME ? fb::AutoPad::SameUpper : fb::AutoPad::Valid;
}

namespace {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

}  // namespace

Layout follow_inputs(TfliteOpContext& ctx, const std::vector<int>& inputs) {
  if (ctx.output_shape(0).size() != 4) return Layout::kNhwc;
  bool any_nchw = false;
  for (int i : inputs) {
    if (!ctx.has_input(i)) continue;
    const Shape s = ctx.input_shape(i);
    if (ctx.input_is_constant(i) && s.size() <= 4) continue;
    if (s.size() == 4) {
      any_nchw = any_nchw || ctx.input_held_nchw(i);
    } else if (numel(s) != 1) {
      return Layout::kNhwc;
    }
  }
  return any_nchw ? Layout::kNchw : Layout::kNhwc;
}

int broadcast_input(TfliteOpContext& ctx, int i, Layout layout) {
  const Shape s = ctx.input_shape(i);
  if (layout == Layout::kNhwc || s.size() == 4) return ctx.input(i, layout);
  // One element (follow_inputs allows no other): broadcasts either way.
  if (!ctx.input_is_constant(i) || s.size() > 4) return ctx.input(i);
  // Right-align to 4-D, then permute as a 4-D NHWC constant.
  Shape four(4 - s.size(), 1);
  four.insert(four.end(), s.begin(), s.end());
  std::vector<int64_t> perm_in_4d = {0, 3, 1, 2};
  int v = ctx.input(i);
  if (v < 0 || !ctx.value(v).is_constant()) return v;
  return ctx.constant(permute(ctx.value(v).data->reshaped(four), perm_in_4d), "broadcast_nchw");
}

std::vector<int64_t> to_nchw_order(const std::vector<int64_t>& nhwc) {
  if (nhwc.size() != 4) return nhwc;
  return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]};
}

bool same_order_in_nchw(const Shape& s) {
  if (s.size() != 4) return false;
  std::vector<int> a, b;
  for (int k : {0, 1, 2, 3}) {
    if (s[static_cast<size_t>(k)] != 1) a.push_back(k);
  }
  for (int k : {0, 3, 1, 2}) {
    if (s[static_cast<size_t>(k)] != 1) b.push_back(k);
  }
  return a == b;
}

}  // namespace mote::convert
