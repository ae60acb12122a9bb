// Attention: the optimised CPU kernel (two sgemms and a SIMD softmax per
// block of query rows) against the reference kernel (ONNX's equations one
// query row at a time in double), over 3-D and 4-D layouts, grouped heads,
// float and bool masks that broadcast or are shorter than the keys, the
// causal rule, explicit scales, and query lengths across a row-block edge;
// the forms the CPU kernel hands to the reference one must still agree.
#include <limits>

#include "tests/support/op_test_util.hpp"

namespace mote::test {
namespace {

struct Case {
  bool three_d;
  int64_t batch, q_heads, kv_heads, q_len, kv_len, head_size, v_head_size;
  bool causal;
  float scale;
};

fb::OpT op_for(const Case& c) {
  fb::AttentionAttrsT a;
  a.is_causal = c.causal;
  a.scale = c.scale;
  if (c.three_d) {
    a.q_num_heads = c.q_heads;
    a.kv_num_heads = c.kv_heads;
  }
  return make_op(fb::OpType::Attention, a);
}

Inputs inputs_for(const Case& c, uint32_t seed) {
  auto shape = [&](int64_t heads, int64_t len, int64_t size) {
    return c.three_d ? Shape{c.batch, len, heads * size} : Shape{c.batch, heads, len, size};
  };
  return {random_tensor(DType::F32, shape(c.q_heads, c.q_len, c.head_size), seed, -2, 2),
          random_tensor(DType::F32, shape(c.kv_heads, c.kv_len, c.head_size), seed + 1, -2, 2),
          random_tensor(DType::F32, shape(c.kv_heads, c.kv_len, c.v_head_size), seed + 2)};
}

std::string describe(const Case& c) {
  return std::string(c.three_d ? "3-D" : "4-D") + " batch " + std::to_string(c.batch) + " heads " +
         std::to_string(c.q_heads) + "/" + std::to_string(c.kv_heads) + " q " + std::to_string(c.q_len) + " kv " +
         std::to_string(c.kv_len) + (c.causal ? " causal" : "");
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {false, 1, 4, 4, 128, 128, 32, 32, false, 0.0f},  // a transformer encoder's self-attention
      {false, 2, 6, 2, 70, 45, 8, 5, false, 0.25f},     // grouped heads, a row block and a bit
      {true, 2, 4, 2, 9, 13, 6, 7, true, 0.0f},         // packed heads, causal with more keys than queries
      {true, 1, 1, 1, 1, 1, 1, 1, false, 0.0f},
      {false, 1, 2, 2, 130, 3, 16, 16, true, 0.0f},  // causal with fewer keys than queries
      {false, 1, 1, 1, 40, 5000, 4, 4, false, 0.0f},  // long keys: blocks of few rows
  };
  return all;
}

TEST(AttentionOps, CpuKernelMatchesTheReference) {
  uint32_t seed = 1;
  for (const Case& c : cases()) {
    SCOPED_TRACE(describe(c));
    expect_cpu_matches_reference(op_for(c), inputs_for(c, seed), 1e-4, 1e-5);
    seed += 10;
  }
}

TEST(AttentionOps, MasksBroadcastAndPadLikeTheReference) {
  const Case c{false, 2, 3, 3, 17, 11, 8, 8, false, 0.0f};
  Inputs base = inputs_for(c, 5);
  // A float mask per query and key, shared by batch and heads.
  Inputs in = base;
  in.push_back(random_tensor(DType::F32, {17, 11}, 9, -3, 0));
  expect_cpu_matches_reference(op_for(c), in, 1e-4, 1e-5);
  // A bool mask per batch and head, shorter than the keys (the rest is masked),
  // with one query row masked everywhere (it attends to nothing).
  Tensor keep = random_tensor(DType::Bool, {2, 3, 17, 7}, 11, 0, 2);
  for (int64_t j = 0; j < 7; ++j) keep.data<bool>()[(1 * 3 + 2) * 17 * 7 + 4 * 7 + j] = false;
  in = base;
  in.push_back(keep);
  expect_cpu_matches_reference(op_for(c), in, 1e-4, 1e-5);
  // A float mask of one row per batch, with -inf entries, on the causal rule.
  Case causal = c;
  causal.causal = true;
  Tensor bias = random_tensor(DType::F32, {2, 1, 1, 11}, 13, -1, 1);
  bias.data<float>()[3] = -std::numeric_limits<float>::infinity();
  in = inputs_for(causal, 5);
  in.push_back(bias);
  expect_cpu_matches_reference(op_for(causal), in, 1e-4, 1e-5);
}

TEST(AttentionOps, FormsLeftToTheReferenceKernelStillAgree) {
  const Case c{false, 1, 2, 2, 5, 6, 4, 4, false, 0.0f};
  // A soft cap.
  fb::OpT op = op_for(c);
  const_cast<fb::AttentionAttrsT*>(find_attrs<fb::AttentionAttrsT>(op))->softcap = 2.0f;
  expect_cpu_matches_reference(op, inputs_for(c, 3), 1e-5, 1e-6);
  // A KV cache: past key and value, with present outputs.
  fb::OpT cached = op_for(c);
  cached.outputs = {10, 11, 12};
  Inputs in = inputs_for(c, 4);
  in.push_back(std::nullopt);
  in.push_back(random_tensor(DType::F32, {1, 2, 3, 4}, 20));
  in.push_back(random_tensor(DType::F32, {1, 2, 3, 4}, 21));
  expect_cpu_matches_reference(cached, in, 1e-5, 1e-6);
}

}  // namespace
}  // namespace mote::test
