// The channel-blocked activation layout (runtime/core/layout.hpp): chains of
// MobileNet-style blocks (1x1 expand, depthwise, 1x1 project with a
// residual) run with it on the CPU backend and are compared with the plain
// reference kernels, which never see it; the plan must really have kept
// tensors blocked, and keep planar what a planar-only reader takes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mote/mote.hpp"
#include "runtime/core/layout.hpp"
#include "runtime/cpu/conv_depthwise.hpp"
#include "runtime/cpu/plane_conv_shape.hpp"
#include "runtime/ops/conv_geometry.hpp"
#include "tests/support/model_util.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote {
namespace {

Tensor random_tensor(Shape shape, uint32_t seed) {
  const size_t n = static_cast<size_t>(shape_numel(shape));
  return Tensor::from_vector<float>(std::move(shape), test::random_floats(n, seed));
}

fb::ConvAttrsT conv(int64_t stride, int64_t pad, int64_t group) {
  fb::ConvAttrsT a;
  a.strides = {stride, stride};
  a.pads = {pad, pad, pad, pad};
  a.group = group;
  return a;
}

void fuse(GraphBuilder& b, fb::ActivationKind kind, float lo = -3.4e38f, float hi = 3.4e38f) {
  auto act = std::make_unique<fb::FusedActivationT>();
  act->kind = kind;
  act->min = lo;
  act->max = hi;
  b.last_op().fused = std::move(act);
}

struct Chain {
  int64_t batch, channels, expanded, size, stride;
  bool planar_reader;  // a Relu (no blocked kernel) also reads the middle tensor
  int blocked;         // tensors the plan should keep blocked
  bool pooled_head = false;  // a GlobalAveragePool (reads blocks) instead of the 1x1 head
  // The depthwise layers' activation: HardSwish in the tiles' registers, or
  // Sigmoid, a pass over each written block.
  fb::ActivationKind depthwise_activation = fb::ActivationKind::HardSwish;
};

// x -> [expand 1x1 + Relu6, depthwise 3x3 + HardSwish (or Sigmoid), project 1x1] -> y1
//   -> [expand, depthwise, project + residual y1] -> 1x1 head -> out.
// Channel counts that are not multiples of the block leave padding lanes.
std::shared_ptr<const Model> chain_model(const Chain& c) {
  GraphBuilder b;
  uint32_t seed = 10;
  const auto weight = [&](const std::string& name, Shape shape) {
    return b.add_constant(name, random_tensor(std::move(shape), seed++));
  };
  const auto block = [&](int x, int64_t stride, int residual, const std::string& p) {
    int e = b.add_op(fb::OpType::Conv,
                     {x, weight(p + "we", {c.expanded, c.channels, 1, 1}), weight(p + "be", {c.expanded})},
                     conv(1, 0, 1))[0];
    fuse(b, fb::ActivationKind::Clip, 0.0f, 6.0f);
    int d = b.add_op(fb::OpType::Conv, {e, weight(p + "wd", {c.expanded, 1, 3, 3}), weight(p + "bd", {c.expanded})},
                     conv(stride, 1, c.expanded))[0];
    fuse(b, c.depthwise_activation);
    std::vector<int> inputs = {d, weight(p + "wp", {c.channels, c.expanded, 1, 1}), weight(p + "bp", {c.channels})};
    if (residual >= 0) inputs.push_back(residual);
    return b.add_op(fb::OpType::Conv, inputs, conv(1, 0, 1))[0];
  };
  int x = b.add_input("x", DType::F32, {c.batch, c.channels, c.size, c.size});
  int y1 = block(x, c.stride, -1, "a");
  int y2 = block(y1, 1, y1, "b");
  int head = c.pooled_head ? b.add_op(fb::OpType::GlobalAveragePool, {y2})[0]
                           : b.add_op(fb::OpType::Conv, {y2, weight("wh", {80, c.channels, 1, 1})}, conv(1, 0, 1))[0];
  b.mark_output(head, "out");
  if (c.planar_reader) b.mark_output(b.add_op(fb::OpType::Relu, {y1})[0], "relu");
  return test::load_built(b);
}

// Runs `model` twice in one session (the second run reuses what the first
// prepared) and returns the second run's outputs, checking that both runs
// agree bit for bit.
std::vector<Tensor> run(const std::shared_ptr<const Model>& model, const std::vector<Tensor>& inputs,
                        SessionOptions options, PlanStats* stats = nullptr) {
  auto session = Session::create(model, options);
  EXPECT_TRUE(session.ok()) << session.status().to_string();
  if (!session.ok()) return {};
  auto first = (*session)->run(inputs);
  EXPECT_TRUE(first.ok()) << first.status().to_string();
  auto out = (*session)->run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (!first.ok() || !out.ok()) return {};
  for (size_t o = 0; o < out->size(); ++o) {
    EXPECT_EQ(0, std::memcmp((*first)[o].raw(), (*out)[o].raw(), (*out)[o].bytes())) << "output " << o;
  }
  if (stats) *stats = (*session)->plan_stats();
  return *out;
}

std::vector<Tensor> run(const std::shared_ptr<const Model>& model, const Tensor& x, SessionOptions options,
                        PlanStats* stats = nullptr) {
  return run(model, std::vector<Tensor>{x}, options, stats);
}

void expect_near(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t o = 0; o < expected.size(); ++o) {
    ASSERT_EQ(actual[o].shape(), expected[o].shape());
    for (int64_t i = 0; i < expected[o].numel(); ++i) {
      const float e = expected[o].data<float>()[i];
      ASSERT_NEAR(actual[o].data<float>()[i], e, 1e-3 * (1.0 + std::fabs(e))) << "output " << o << " " << i;
    }
  }
}

TEST(BlockedLayout, ChainsMatchTheReference) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  // Narrow and wide planes, strides 1 and 2, batch 1 and 2.
  // All six intermediates blocked, but: with a planar reader of y1, y1 and
  // (tied to it as the residual) y2 stay planar; at 81 pixels a 1x1 layer
  // with an NCHW output takes no blocked input (conv.cpp), so the head
  // keeps y2 planar, the tie y1, and the projects the depthwise outputs
  // (the wide ones then transpose their row tiles into NCHW).
  const Chain chains[] = {
      {1, 72, 136, 7, 1, false, 6},
      {2, 64, 96, 8, 1, false, 6},
      {1, 96, 200, 14, 2, false, 6},
      {1, 80, 120, 9, 1, false, 2},
      {2, 72, 136, 7, 1, true, 4},
      {1, 68, 100, 6, 1, false, 6},
      // Rows of 28 and 27 outputs: the depthwise row tiles and their tails;
      // at 54 and 50 wide, bands of output rows (conv_depthwise.cpp).
      {1, 64, 96, 28, 1, false, 6, true},
      {2, 68, 100, 54, 2, false, 6, true},
      {1, 36, 40, 50, 1, false, 6, true},
      // Sigmoid after the depthwise layers: a pass over each block.
      {1, 72, 136, 7, 1, false, 6, false, fb::ActivationKind::Sigmoid},
      {1, 36, 40, 50, 1, false, 6, true, fb::ActivationKind::Sigmoid},
      {1, 64, 96, 28, 1, false, 2},
      // 300 input channels to the projections: 1x1 layers sum them in
      // passes (three of 128, 128 and 44 at 16 lanes, two at 8) with the
      // partial sums kept in the output between them.
      {1, 40, 300, 7, 1, false, 6},
      // 600 input channels of NCHW, batch 2, into 1x1 layers with Relu6
      // (the expansions): passes at every lane count, the clamp only on the
      // last. A pooled head: a 1x1 one sums 600 channels of values in the
      // tens, past this test's tolerance for any summation order.
      {2, 600, 64, 7, 1, false, 6, true},
  };
  for (const Chain& c : chains) {
    SCOPED_TRACE("batch " + std::to_string(c.batch) + " channels " + std::to_string(c.channels) + "/" +
                 std::to_string(c.expanded) + " size " + std::to_string(c.size) + " stride " +
                 std::to_string(c.stride) + (c.planar_reader ? " with a planar reader" : ""));
    auto model = chain_model(c);
    ASSERT_NE(model, nullptr);
    const Tensor x = random_tensor({c.batch, c.channels, c.size, c.size}, 7);
    const std::vector<Tensor> expected = run(model, x, {.backend = Backend::kReference});
    // Every SIMD target of the kernels (AVX2's narrower tiles too); where
    // the kernels' widths differ under a forced target, nothing is blocked.
    test::for_each_simd_target([&] {
      for (int threads : {1, 2}) {
        PlanStats blocked_stats, planar_stats;
        const std::vector<Tensor> blocked = run(model, x, {.threads = threads}, &blocked_stats);
        SessionOptions planar_options{.threads = threads};
        planar_options.channel_blocked_layout = false;
        const std::vector<Tensor> planar = run(model, x, planar_options, &planar_stats);
        EXPECT_EQ(blocked_stats.blocked_tensors, channel_block() > 1 ? c.blocked : 0);
        EXPECT_EQ(planar_stats.blocked_tensors, 0);
        expect_near(blocked, expected);
        expect_near(planar, expected);
      }
    });
    if (HasFatalFailure()) return;
  }
}

// 1x1 layers writing blocks with run-time operands: constant weights with a
// bias that is a graph input (the prepared weights, the bias padded per
// run), and weights that are a graph input (packed per run); between them
// a 5x5 stride-2 depthwise layer (with SiLU) wide enough for row tiles.
TEST(BlockedLayout, RunTimeWeightsAndWideStrideTwoMatchTheReference) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  // 30 outputs a row: row tiles of 8 and the rest; 14: row tiles of 7.
  for (int64_t size : {60, 28}) {
    SCOPED_TRACE("size " + std::to_string(size));
    GraphBuilder b;
    int x = b.add_input("x", DType::F32, {1, 36, size, size});
    int bias = b.add_input("bias", DType::F32, {80});
    int w = b.add_input("w", DType::F32, {40, 80, 1, 1});
    int e = b.add_op(fb::OpType::Conv, {x, b.add_constant("we", random_tensor({80, 36, 1, 1}, 3)), bias},
                     conv(1, 0, 1))[0];
    fuse(b, fb::ActivationKind::Relu);
    int d = b.add_op(fb::OpType::Conv, {e, b.add_constant("wd", random_tensor({80, 1, 5, 5}, 4))}, conv(2, 2, 80))[0];
    fuse(b, fb::ActivationKind::SiLU);
    int f = b.add_op(fb::OpType::Conv, {d, w}, conv(1, 0, 1))[0];
    b.mark_output(b.add_op(fb::OpType::GlobalAveragePool, {f})[0], "pooled");
    auto model = test::load_built(b);
    ASSERT_NE(model, nullptr);
    const std::vector<Tensor> inputs = {random_tensor({1, 36, size, size}, 5), random_tensor({80}, 6),
                                        random_tensor({40, 80, 1, 1}, 7)};
    const std::vector<Tensor> expected = run(model, inputs, {.backend = Backend::kReference});
    PlanStats stats;
    const std::vector<Tensor> blocked = run(model, inputs, {.threads = 2}, &stats);
    EXPECT_EQ(stats.blocked_tensors, 3);  // e, d and f
    expect_near(blocked, expected);
  }
}

// A squeeze-and-excitation block as MobileNetV3 and EfficientNet have it:
// expand, depthwise, GlobalAveragePool of the depthwise output, two 1x1
// layers on [N, C, 1, 1] with a Sigmoid, the depthwise output scaled by them
// (Mul, per-channel operand first or second), project, and an unfused Add of
// two blocked tensors. The depthwise output, the Mul and the Add stay blocked.
// 1x1 layers of few pixels and channels write blocks too (pointwise_blocked).
std::shared_ptr<const Model> excitation_model(int64_t batch, int64_t channels, int64_t expanded, int64_t size,
                                              bool scale_first, bool pooled_head) {
  GraphBuilder b;
  uint32_t seed = 40;
  const auto weight = [&](const std::string& name, Shape shape) {
    return b.add_constant(name, random_tensor(std::move(shape), seed++));
  };
  int x = b.add_input("x", DType::F32, {batch, channels, size, size});
  int e = b.add_op(fb::OpType::Conv, {x, weight("we", {expanded, channels, 1, 1})}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::SiLU);
  int d = b.add_op(fb::OpType::Conv, {e, weight("wd", {expanded, 1, 5, 5})}, conv(1, 2, expanded))[0];
  int pooled = b.add_op(fb::OpType::GlobalAveragePool, {d})[0];
  int squeezed = b.add_op(fb::OpType::Conv, {pooled, weight("ws", {16, expanded, 1, 1})}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::Relu);
  int gate = b.add_op(fb::OpType::Conv, {squeezed, weight("wx", {expanded, 16, 1, 1})}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::Sigmoid);
  int scaled = b.add_op(fb::OpType::Mul, scale_first ? std::vector<int>{gate, d} : std::vector<int>{d, gate})[0];
  int p = b.add_op(fb::OpType::Conv, {scaled, weight("wp", {channels, expanded, 1, 1})}, conv(1, 0, 1))[0];
  int q = b.add_op(fb::OpType::Conv, {p, weight("wq", {channels, channels, 1, 1})}, conv(1, 0, 1))[0];
  int sum = b.add_op(fb::OpType::Add, {p, q})[0];
  b.mark_output(pooled_head ? b.add_op(fb::OpType::GlobalAveragePool, {sum})[0]
                            : b.add_op(fb::OpType::Conv, {sum, weight("wh", {72, channels, 1, 1})}, conv(1, 0, 1))[0],
                "out");
  return test::load_built(b);
}

TEST(BlockedLayout, ExcitationBlocksMatchTheReference) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  struct Case {
    bool scale_first;
    int64_t batch, size;  // 30: the 5x5 depthwise in row tiles
  };
  // At 30x30 the head is a GlobalAveragePool: a 1x1 head writing NCHW there
  // would take its input, and through the ties everything after the
  // depthwise, out of blocks.
  for (const Case& c : {Case{false, 1, 7}, Case{true, 1, 7}, Case{false, 2, 7}, Case{true, 2, 30}}) {
    {
      const bool scale_first = c.scale_first;
      const int64_t batch = c.batch;
      SCOPED_TRACE(std::string(scale_first ? "gate * x" : "x * gate") + " batch " + std::to_string(batch) + " size " +
                   std::to_string(c.size));
      auto model = excitation_model(batch, 72, 120, c.size, scale_first, c.size > 8);
      ASSERT_NE(model, nullptr);
      const Tensor x = random_tensor({batch, 72, c.size, c.size}, 5);
      const std::vector<Tensor> expected = run(model, x, {.backend = Backend::kReference});
      PlanStats stats;
      const std::vector<Tensor> blocked = run(model, x, {.threads = 2}, &stats);
      // e, d, the squeezed [N, 16, 1, 1] between the two 1x1 layers, the
      // Mul, p, q and the Add; the gate stays NCHW for the Mul.
      EXPECT_EQ(stats.blocked_tensors, 7);
      expect_near(blocked, expected);
    }
  }
}

fb::ConvAttrsT dilated_attrs() {
  fb::ConvAttrsT a = conv(1, 0, 68);
  a.pads = {3, 4, 4, 3};
  a.dilations = {2, 2};
  return a;
}

// The layouts' other edges, with channel counts of partial blocks on every
// vector width: a depthwise 5x5 with dilation and uneven padding reading the
// NCHW graph input and writing blocks; a stride-2 depthwise reading blocks
// and writing NCHW for a Relu; 1x1 layers with fused HardSwish and SiLU,
// one with a blocked residual and a fused Sigmoid after it (a pass over the
// output), one with a residual and SiLU after it (in registers,
// tile_activation.hpp).
std::shared_ptr<const Model> edges_model(int64_t batch) {
  GraphBuilder b;
  uint32_t seed = 70;
  const auto weight = [&](const std::string& name, Shape shape) {
    return b.add_constant(name, random_tensor(std::move(shape), seed++));
  };
  int x = b.add_input("x", DType::F32, {batch, 68, 10, 10});
  int d1 = b.add_op(fb::OpType::Conv, {x, weight("w1", {68, 1, 5, 5}), weight("b1", {68})}, dilated_attrs())[0];
  fuse(b, fb::ActivationKind::SiLU);
  int p1 = b.add_op(fb::OpType::Conv, {d1, weight("wp1", {100, 68, 1, 1})}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::HardSwish);
  int d2 = b.add_op(fb::OpType::Conv, {p1, weight("w2", {100, 1, 3, 3})}, conv(2, 1, 100))[0];
  int p2 = b.add_op(fb::OpType::Conv, {d2, weight("wp2", {100, 100, 1, 1}), weight("bp2", {100})}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::SiLU);
  int p3 = b.add_op(fb::OpType::Conv, {p2, weight("wp3", {100, 100, 1, 1}), -1, p2}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::Sigmoid);
  int p4 = b.add_op(fb::OpType::Conv, {p3, weight("wp5", {100, 100, 1, 1}), -1, p3}, conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::SiLU);
  b.mark_output(b.add_op(fb::OpType::Conv, {p4, weight("wp4", {72, 100, 1, 1})}, conv(1, 0, 1))[0], "out");
  b.mark_output(b.add_op(fb::OpType::Relu, {d2})[0], "relu");
  return test::load_built(b);
}

TEST(BlockedLayout, LayoutEdgesMatchTheReference) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    auto model = edges_model(batch);
    ASSERT_NE(model, nullptr);
    const Tensor x = random_tensor({batch, 68, 10, 10}, 9);
    const std::vector<Tensor> expected = run(model, x, {.backend = Backend::kReference});
    for (int threads : {1, 2}) {
      PlanStats stats;
      const std::vector<Tensor> blocked = run(model, x, {.threads = threads}, &stats);
      // d1, p1, p2, p3, p4; d2 feeds the Relu. d1 writes blocks from the NCHW
      // input only where its 9-wide planes count as narrow (conv.cpp): with
      // 8 lanes or more, not with NEON's 4.
      auto g = resolve_conv(dilated_attrs(), {batch, 68, 10, 10}, {68, 1, 5, 5});
      ASSERT_TRUE(g.ok());
      const bool d1_blocked = cpu::prefers_channel_blocks(cpu::plane_conv_shape(*g, 0.0f, 0.0f));
      EXPECT_EQ(stats.blocked_tensors, d1_blocked ? 5 : 4);
      expect_near(blocked, expected);
    }
  }
}

// A tensor read by an op without a blocked kernel (here Relu) stays NCHW,
// and so does the residual tied to it: with the planar reader, the first
// project's output and the second project's output (its residual is the
// first's) are planar, leaving fewer blocked tensors than without it.
TEST(BlockedLayout, PlanarReadersKeepTheirTensorsPlanar) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  PlanStats with_reader, without_reader;
  for (bool reader : {false, true}) {
    auto model = chain_model({1, 72, 136, 7, 1, reader, 0});
    ASSERT_NE(model, nullptr);
    run(model, random_tensor({1, 72, 7, 7}, 3), {.threads = 1}, reader ? &with_reader : &without_reader);
  }
  // Without the reader: both expands, both depthwise outputs, y1 and y2.
  EXPECT_EQ(without_reader.blocked_tensors, 6);
  EXPECT_EQ(with_reader.blocked_tensors, 4);
}

// Depthwise layers reading blocks into the NCHW graph output, compared pixel
// by pixel: planes wide enough for bands of output rows at every vector
// width (conv_depthwise.cpp, kBandBytes), rows of 14 (tiles of 7 where
// there are 32 registers), 3x3 and 5x5, strides 1 and 2, SiLU and HardSwish
// applied in registers before the transpose into NCHW.
TEST(BlockedLayout, DepthwiseBandsIntoPlanarOutputsMatchTheReference) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  struct Case {
    int64_t batch, size, kernel, stride;
    fb::ActivationKind activation;
  };
  const Case cases[] = {
      {1, 70, 3, 1, fb::ActivationKind::SiLU}, {2, 72, 3, 2, fb::ActivationKind::HardSwish},
      {1, 76, 5, 2, fb::ActivationKind::SiLU}, {1, 28, 5, 2, fb::ActivationKind::HardSwish},
      {1, 14, 3, 1, fb::ActivationKind::SiLU}, {1, 66, 5, 1, fb::ActivationKind::Relu},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("batch " + std::to_string(c.batch) + " size " + std::to_string(c.size) + " kernel " +
                 std::to_string(c.kernel) + " stride " + std::to_string(c.stride));
    GraphBuilder b;
    uint32_t seed = 120;
    const auto weight = [&](const std::string& name, Shape shape) {
      return b.add_constant(name, random_tensor(std::move(shape), seed++));
    };
    int x = b.add_input("x", DType::F32, {c.batch, 24, c.size, c.size});
    int e = b.add_op(fb::OpType::Conv, {x, weight("we", {40, 24, 1, 1})}, conv(1, 0, 1))[0];
    fuse(b, fb::ActivationKind::Relu);
    int d = b.add_op(fb::OpType::Conv, {e, weight("wd", {40, 1, c.kernel, c.kernel}), weight("bd", {40})},
                     conv(c.stride, c.kernel / 2, 40))[0];
    fuse(b, c.activation, 0.0f, 6.0f);
    b.mark_output(d, "out");
    auto model = test::load_built(b);
    ASSERT_NE(model, nullptr);
    const Tensor input = random_tensor({c.batch, 24, c.size, c.size}, 13);
    const std::vector<Tensor> expected = run(model, input, {.backend = Backend::kReference});
    test::for_each_simd_target([&] {
      for (int threads : {1, 2}) {
        PlanStats stats;
        const std::vector<Tensor> blocked = run(model, input, {.threads = threads}, &stats);
        EXPECT_EQ(stats.blocked_tensors, channel_block() > 1 ? 1 : 0);  // e
        expect_near(blocked, expected);
      }
    });
    if (HasFatalFailure()) return;
  }
}

// Depthwise layers reading blocks in place (conv_depthwise.cpp, RowSource):
// their padding is zero rows above and below and checked tiles at the row
// ends, so every padding matters: none, only after (TensorFlow's SAME at
// stride 2), only before, wider than the kernel's half, uneven; rows whose
// tiles leave 4, 2 and 1 outputs, rows of tiles of 7. Written both as
// blocks (read in place by a second depthwise layer) and into the NCHW graph
// output.
TEST(BlockedLayout, DepthwiseReadingBlocksInPlaceMatchesTheReferenceAtEveryPadding) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  struct Case {
    int64_t size, kernel, stride;
    std::vector<int64_t> pads;  // top, left, bottom, right
  };
  const Case cases[] = {
      {31, 3, 1, {0, 0, 0, 0}},
      {32, 3, 2, {0, 0, 1, 1}},
      {29, 3, 1, {1, 1, 0, 0}},
      {27, 3, 1, {2, 2, 2, 2}},
      {30, 5, 2, {1, 2, 2, 1}},
      {28, 5, 1, {2, 2, 2, 2}},
      {14, 3, 2, {0, 0, 1, 1}},
      {25, 5, 1, {0, 3, 4, 1}},
      // Row tiles on every vector width (at least 24 outputs a row), tails
      // of 2 and 4: stride 2 with padding after only, and uneven 5x5.
      {52, 3, 2, {0, 0, 1, 1}},
      {60, 5, 2, {1, 2, 2, 1}},
      {26, 3, 1, {1, 1, 1, 1}},
  };
  for (const Case& c : cases) {
    for (bool blocked_output : {false, true}) {
      SCOPED_TRACE("size " + std::to_string(c.size) + " kernel " + std::to_string(c.kernel) + " stride " +
                   std::to_string(c.stride) + " pads " + std::to_string(c.pads[0]) + "," + std::to_string(c.pads[1]) +
                   "," + std::to_string(c.pads[2]) + "," + std::to_string(c.pads[3]) +
                   (blocked_output ? ", blocked output" : ", NCHW output"));
      GraphBuilder b;
      uint32_t seed = 140;
      const auto weight = [&](const std::string& name, Shape shape) {
        return b.add_constant(name, random_tensor(std::move(shape), seed++));
      };
      int x = b.add_input("x", DType::F32, {1, 24, c.size, c.size});
      int e = b.add_op(fb::OpType::Conv, {x, weight("we", {40, 24, 1, 1})}, conv(1, 0, 1))[0];
      fuse(b, fb::ActivationKind::Relu);
      fb::ConvAttrsT depthwise = conv(c.stride, 0, 40);
      depthwise.pads = c.pads;
      int d = b.add_op(fb::OpType::Conv, {e, weight("wd", {40, 1, c.kernel, c.kernel}), weight("bd", {40})},
                       depthwise)[0];
      fuse(b, fb::ActivationKind::HardSwish, 0.0f, 6.0f);
      if (blocked_output) {  // read by a second depthwise layer, which writes NCHW
        d = b.add_op(fb::OpType::Conv, {d, weight("wh", {40, 1, 3, 3})}, conv(1, 1, 40))[0];
      }
      b.mark_output(d, "out");
      auto model = test::load_built(b);
      ASSERT_NE(model, nullptr);
      const Tensor input = random_tensor({1, 24, c.size, c.size}, 17);
      const std::vector<Tensor> expected = run(model, input, {.backend = Backend::kReference});
      test::for_each_simd_target([&] {
        for (int threads : {1, 2}) {
          PlanStats stats;
          const std::vector<Tensor> actual = run(model, input, {.threads = threads}, &stats);
          EXPECT_EQ(stats.blocked_tensors, channel_block() > 1 ? (blocked_output ? 2 : 1) : 0);
          expect_near(actual, expected);
        }
      });
      if (HasFatalFailure()) return;
    }
  }
}

fb::ConvAttrsT conv_attrs(std::vector<int64_t> strides, std::vector<int64_t> pads,
                          std::vector<int64_t> dilations = {1, 1}) {
  fb::ConvAttrsT a;
  a.strides = std::move(strides);
  a.pads = std::move(pads);
  a.dilations = std::move(dilations);
  a.group = 1;
  return a;
}

// Convolutions writing channel blocks through conv_blocked.cpp, each with
// rows of at least 16 outputs and at most an eighth of their last block
// padding, so that they take that kernel on every vector width; every path
// of it:
//  - a stem, 3 NCHW channels, 3x3 stride 2 (rows: taps cut by the padding
//    at both ends), Clip in the tiles, read as blocks by a depthwise layer;
//  - a 5x5 stride-1 layer of blocks with dilation 2, uneven padding and a
//    residual, SiLU in the tiles (the padded copy, pixels dropped past each
//    row);
//  - a 1x7 stride-1 layer to 60 channels (a partial last block) with
//    Sigmoid (a pass after the tiles); then 3x3 stride 2 reading those
//    blocks (the partial block's channels one by one) with HardSwish, and
//    1x1 with stride 2 between rows only, writing blocks for a
//    GlobalAveragePool;
//  - from a 5-channel NCHW input, 5x5 stride 1 (the padded copy transposes
//    it into a block) and 3x3 with stride 2 between rows.
// Each blocked tensor is also read pixel by pixel: by a depthwise layer
// writing an NCHW graph output (a planar reader would keep it NCHW).
std::shared_ptr<const Model> blocked_convs_model(int64_t batch) {
  GraphBuilder b;
  uint32_t seed = 300;
  const auto weight = [&](const std::string& name, Shape shape) {
    return b.add_constant(name, random_tensor(std::move(shape), seed++));
  };
  const auto output_per_pixel = [&](int tensor, int64_t channels, const std::string& name) {
    b.mark_output(
        b.add_op(fb::OpType::Conv, {tensor, weight(name + "w", {channels, 1, 1, 1})}, conv(1, 0, channels))[0], name);
  };
  int x = b.add_input("x", DType::F32, {batch, 3, 41, 71});
  int stem = b.add_op(fb::OpType::Conv, {x, weight("w0", {32, 3, 3, 3}), weight("b0", {32})},
                      conv_attrs({2, 2}, {1, 1, 1, 1}))[0];
  fuse(b, fb::ActivationKind::Clip, 0.0f, 6.0f);
  int dw = b.add_op(fb::OpType::Conv, {stem, weight("wd", {32, 1, 3, 3})}, conv(1, 1, 32))[0];
  int wide = b.add_op(fb::OpType::Conv, {dw, weight("w1", {32, 32, 5, 5}), weight("b1", {32}), dw},
                      conv_attrs({1, 1}, {4, 3, 4, 5}, {2, 2}))[0];
  fuse(b, fb::ActivationKind::SiLU);
  int row = b.add_op(fb::OpType::Conv, {wide, weight("w2", {60, 32, 1, 7}), weight("b2", {60})},
                     conv_attrs({1, 1}, {0, 3, 0, 2}))[0];
  fuse(b, fb::ActivationKind::Sigmoid);
  int strided = b.add_op(fb::OpType::Conv, {row, weight("w3", {64, 60, 3, 3})}, conv_attrs({2, 2}, {1, 1, 1, 1}))[0];
  fuse(b, fb::ActivationKind::HardSwish);
  int down = b.add_op(fb::OpType::Conv, {strided, weight("w4", {32, 64, 1, 1})}, conv_attrs({2, 1}, {0, 0, 0, 0}))[0];
  b.mark_output(b.add_op(fb::OpType::GlobalAveragePool, {down})[0], "pooled");
  output_per_pixel(wide, 32, "wide");
  output_per_pixel(row, 60, "row");
  output_per_pixel(strided, 64, "strided");
  output_per_pixel(down, 32, "down");
  int y = b.add_input("y", DType::F32, {batch, 5, 18, 20});
  int planar_in = b.add_op(fb::OpType::Conv, {y, weight("w5", {16, 5, 5, 5}), weight("b5", {16})},
                           conv_attrs({1, 1}, {2, 1, 2, 3}))[0];
  b.mark_output(b.add_op(fb::OpType::Conv, {planar_in, weight("w6", {16, 1, 3, 3})}, conv(1, 1, 16))[0], "dw");
  int planar_rows = b.add_op(fb::OpType::Conv, {y, weight("w7", {16, 5, 3, 3})}, conv_attrs({2, 1}, {1, 1, 1, 1}))[0];
  output_per_pixel(planar_rows, 16, "planar_rows");
  return test::load_built(b);
}

TEST(BlockedLayout, LargerKernelsWritingBlocksMatchTheReference) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    auto model = blocked_convs_model(batch);
    ASSERT_NE(model, nullptr);
    const std::vector<Tensor> inputs = {random_tensor({batch, 3, 41, 71}, 31), random_tensor({batch, 5, 18, 20}, 32)};
    const std::vector<Tensor> expected = run(model, inputs, {.backend = Backend::kReference});
    test::for_each_simd_target([&] {
      for (int threads : {1, 2}) {
        PlanStats stats;
        const std::vector<Tensor> blocked = run(model, inputs, {.threads = threads}, &stats);
        // stem, dw, wide, row, strided, down, planar_in, planar_rows.
        EXPECT_EQ(stats.blocked_tensors, channel_block() > 1 ? 8 : 0);
        expect_near(blocked, expected);
      }
    });
    if (HasFatalFailure()) return;
  }
}

// A tensor that only a GlobalAveragePool reads (blocks read no faster
// there), written by a 1x1 layer from an NCHW input, stays NCHW (the GEMM
// writes it: SqueezeNet's classifier); with a depthwise layer reading it
// too, it is blocked. Both match the reference.
std::shared_ptr<const Model> pooled_pointwise_model(bool depthwise_reader) {
  GraphBuilder b;
  int x = b.add_input("x", DType::F32, {1, 64, 13, 13});
  int y = b.add_op(
      fb::OpType::Conv,
      {x, b.add_constant("w", random_tensor({96, 64, 1, 1}, 51)), b.add_constant("b", random_tensor({96}, 52))},
      conv(1, 0, 1))[0];
  fuse(b, fb::ActivationKind::Relu);
  b.mark_output(b.add_op(fb::OpType::GlobalAveragePool, {y})[0], "pooled");
  if (depthwise_reader) {
    b.mark_output(
        b.add_op(fb::OpType::Conv, {y, b.add_constant("wd", random_tensor({96, 1, 3, 3}, 53))}, conv(1, 1, 96))[0],
        "dw");
  }
  return test::load_built(b);
}

TEST(BlockedLayout, BlocksOnlyAGlobalPoolWouldReadStayPlanar) {
  if (channel_block() <= 1) GTEST_SKIP() << "the GEMM and depthwise kernels use different vector widths here";
  for (bool depthwise_reader : {false, true}) {
    SCOPED_TRACE(depthwise_reader ? "with a depthwise reader" : "pooled only");
    auto model = pooled_pointwise_model(depthwise_reader);
    ASSERT_NE(model, nullptr);
    const Tensor x = random_tensor({1, 64, 13, 13}, 54);
    const std::vector<Tensor> expected = run(model, x, {.backend = Backend::kReference});
    for (int threads : {1, 2}) {
      PlanStats stats;
      expect_near(run(model, x, {.threads = threads}, &stats), expected);
      EXPECT_EQ(stats.blocked_tensors, depthwise_reader ? 1 : 0);
    }
  }
}

}  // namespace
}  // namespace mote
