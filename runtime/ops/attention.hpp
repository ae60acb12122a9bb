// The geometry of an Attention op (ONNX opset 23/24), decided once from the
// input shapes and shared by the shape function and the kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/attrs.hpp"

namespace mote {

// Inputs: 0 Q, 1 K, 2 V, 3 attn_mask?, 4 past_key?, 5 past_value?,
// 6 nonpad_kv_seqlen?. Outputs: 0 Y, 1 present_key?, 2 present_value?,
// 3 qk_matmul_output?.
struct AttentionGeometry {
  bool three_d = false;  // inputs [batch, seq, heads * size]
  int64_t batch = 0;
  int64_t q_heads = 0, kv_heads = 0;
  int64_t q_len = 0, kv_len = 0;  // kv_len: new keys only
  int64_t past_len = 0;
  int64_t head_size = 0, v_head_size = 0;

  int64_t total_len() const { return past_len + kv_len; }
  Shape y_shape() const;
  Shape present_key_shape() const { return {batch, kv_heads, total_len(), head_size}; }
  Shape present_value_shape() const { return {batch, kv_heads, total_len(), v_head_size}; }
  Shape scores_shape() const { return {batch, q_heads, q_len, total_len()}; }
};

// The geometry of shapes q, k, v and (empty when absent) past_key and
// past_value, or an error saying which shape does not fit.
Result<AttentionGeometry> attention_geometry(const fb::AttentionAttrsT& a, const Shape& q, const Shape& k,
                                             const Shape& v, const Shape* past_key, const Shape* past_value);

}  // namespace mote
