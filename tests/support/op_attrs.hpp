// Attribute builders the op tests of every backend share (CPU op tests in
// tests/ops, Vulkan ones in tests/vulkan), with ONNX defaults for what a
// case leaves out.
#pragma once

#include <vector>

#include "tests/support/op_test_util.hpp"

namespace mote::test {

inline fb::ConvAttrsT conv_attrs(std::vector<int64_t> strides = {}, std::vector<int64_t> pads = {},
                                 std::vector<int64_t> dilations = {}, int64_t group = 1,
                                 fb::AutoPad auto_pad = fb::AutoPad::NotSet) {
  fb::ConvAttrsT a;
  a.strides = std::move(strides);
  a.pads = std::move(pads);
  a.dilations = std::move(dilations);
  a.group = group;
  a.auto_pad = auto_pad;
  return a;
}

inline fb::GemmAttrsT gemm_attrs(float alpha = 1.0f, float beta = 1.0f, bool trans_a = false, bool trans_b = false) {
  fb::GemmAttrsT a;
  a.alpha = alpha;
  a.beta = beta;
  a.trans_a = trans_a;
  a.trans_b = trans_b;
  return a;
}

struct PoolParams {
  std::vector<int64_t> kernel, strides = {}, pads = {}, dilations = {};
  fb::AutoPad auto_pad = fb::AutoPad::NotSet;
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// The attribute variants every pool kernel is tested on: dilation, stride 3,
// ceil_mode (with a last window starting in the padding), SAME_UPPER,
// SAME_LOWER and VALID, each without and with count_include_pad.
inline std::vector<PoolParams> pool_attribute_variants() {
  PoolParams dilated{{3, 2}, {1, 2}, {2, 1, 1, 0}, {2, 3}};
  PoolParams stride3{{3, 3}, {3, 3}, {1, 2, 2, 1}};
  PoolParams ceil{{3, 3}, {2, 2}, {1, 1, 1, 1}};
  ceil.ceil_mode = true;
  PoolParams ceil_edge{{2, 2}, {2, 2}, {1, 0, 0, 1}};
  ceil_edge.ceil_mode = true;
  PoolParams same_upper{{3, 2}, {2, 2}};
  same_upper.auto_pad = fb::AutoPad::SameUpper;
  PoolParams same_lower = same_upper;
  same_lower.auto_pad = fb::AutoPad::SameLower;
  PoolParams valid{{3, 3}, {2, 1}};
  valid.auto_pad = fb::AutoPad::Valid;
  std::vector<PoolParams> variants;
  for (PoolParams p : {dilated, stride3, ceil, ceil_edge, same_upper, same_lower, valid}) {
    for (bool count_pad : {false, true}) {
      p.count_include_pad = count_pad;
      variants.push_back(p);
    }
  }
  return variants;
}

inline fb::OpT pool_op(fb::OpType type, const PoolParams& p) {
  fb::PoolAttrsT a;
  a.kernel_shape = p.kernel;
  a.strides = p.strides;
  a.pads = p.pads;
  a.dilations = p.dilations;
  a.auto_pad = p.auto_pad;
  a.ceil_mode = p.ceil_mode;
  a.count_include_pad = p.count_include_pad;
  return make_op(type, a);
}

}  // namespace mote::test
