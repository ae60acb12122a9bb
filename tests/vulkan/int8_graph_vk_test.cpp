// An int8 network on Vulkan end to end, against the CPU backend: quantise,
// QLinearConv (Relu), 8-bit MaxPool, a 1x1 QLinearConv and a residual
// QLinearAdd, QLinearConcat, QLinearActivation (SiLU), nearest Resize of
// codes, QLinearGlobalAveragePool, Flatten, QLinearMatMul, dequantise.
// Every op must run on the GPU (forced on lavapipe, MOTE_VK_FORCE_INT8=1)
// and the arena's byte tensors, several not whole words long, must not
// clobber each other: the logits within two quanta of the CPU's (the
// shaders requantise in f32 like the CPU kernels; a near-tie may round one
// quantum apart and carry on).
#include <set>

#include "tests/ops/fused_activation_util.hpp"
#include "tests/support/model_util.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/quant_inputs.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

constexpr float kLogitScale = 0.05f;

class Int8Graph {
 public:
  int input(const std::string& name, Shape shape) { return b_.add_input(name, DType::F32, std::move(shape)); }
  int constant(Tensor t) { return b_.add_constant(std::string("c").append(std::to_string(constants_++)), t); }
  int scale(float s) { return constant(scalar_of(DType::F32, s)); }
  int zero(double z) { return constant(scalar_of(DType::U8, z)); }

  // The op's attributes and fused activation as built by make_op / with_fused.
  int add(const fb::OpT& op, const std::vector<int>& inputs) {
    const int out = b_.add_op(op.type, inputs)[0];
    fb::OpT& node = b_.last_op();
    fb::OpT copy = op;
    node.nn = std::move(copy.nn);
    node.tensor = std::move(copy.tensor);
    node.math = std::move(copy.math);
    node.fused = std::move(copy.fused);
    return out;
  }
  // QLinearConv of u8 x (scale sx, zero 128) into u8 (scale sy, zero zy),
  // per-channel int8 weights and a bias.
  int conv(int x, float sx, Shape w, fb::ConvAttrsT attrs, float sy, double zy, uint32_t seed,
           const fb::FusedActivationT* act = nullptr) {
    const int64_t m = w[0];
    fb::OpT op = make_op(fb::OpType::QLinearConv, attrs);
    if (act) op = with_fused(std::move(op), *act);
    return add(op, {x, scale(sx), zero(128), constant(random_codes(DType::I8, w, seed)),
                    constant(random_tensor(DType::F32, {m}, seed + 1, 0.004, 0.008)),
                    constant(Tensor::zeros(DType::I8, {m})), scale(sy), zero(zy),
                    constant(random_tensor(DType::I32, {m}, seed + 2, -3000, 3000))});
  }
  std::shared_ptr<const Model> model(int y) {
    b_.mark_output(y, "logits");
    return load_built(b_, "int8_graph.mote");
  }

 private:
  GraphBuilder b_;
  int constants_ = 0;
};

std::shared_ptr<const Model> int8_network() {
  Int8Graph g;
  const int x = g.input("x", {1, 5, 11, 11});
  fb::QuantizeAttrsT per_tensor;
  const int q = g.add(make_op(fb::OpType::QuantizeLinear, per_tensor), {x, g.scale(0.02f), g.zero(128)});
  const fb::FusedActivationT relu = fused_activation(fb::ActivationKind::Relu);
  // 6 x 11 x 11 = 726 bytes, not whole words.
  const int c1 = g.conv(q, 0.02f, {6, 5, 3, 3}, conv_attrs({1, 1}, {1, 1, 1, 1}), 0.04f, 20, 1, &relu);
  const int pool = g.add(pool_op(fb::OpType::MaxPool, {{3, 3}, {2, 2}}), {c1});  // 6 x 5 x 5
  // Two 1x1 branches of 8 channels (200-byte planes: Concat's rows must
  // fill whole words), their sum, and the Concat of the sum and a branch.
  const int c2 = g.conv(pool, 0.04f, {8, 6, 1, 1}, conv_attrs(), 0.04f, 128, 4);
  const int c3 = g.conv(pool, 0.04f, {8, 6, 1, 1}, conv_attrs(), 0.04f, 100, 7);
  const int sum = g.add(make_op(fb::OpType::QLinearAdd), {c2, g.scale(0.04f), g.zero(128), c3, g.scale(0.04f),
                                                          g.zero(100), g.scale(0.05f), g.zero(100)});
  fb::AxisAttrsT channels;
  channels.axis = 1;
  const int joined = g.add(make_op(fb::OpType::QLinearConcat, channels),
                           {g.scale(0.05f), g.zero(100), sum, g.scale(0.05f), g.zero(100), c2, g.scale(0.04f),
                            g.zero(128)});  // 16 x 5 x 5
  const int act =
      g.add(with_fused(make_op(fb::OpType::QLinearActivation), fused_activation(fb::ActivationKind::SiLU)),
            {joined, g.scale(0.05f), g.zero(100), g.scale(0.03f), g.zero(30)});
  fb::ResizeAttrsT nearest;
  nearest.mode = fb::ResizeMode::Nearest;
  const int up = g.add(make_op(fb::OpType::Resize, nearest),
                       {act, -1, g.constant(Tensor::from_vector<float>({4}, {1, 1, 2, 2}))});  // 16 x 10 x 10
  const int gap = g.add(make_op(fb::OpType::QLinearGlobalAveragePool),
                        {up, g.scale(0.03f), g.zero(30), g.scale(0.01f), g.zero(10)});
  fb::AxisAttrsT flatten;
  flatten.axis = 1;
  const int flat = g.add(make_op(fb::OpType::Flatten, flatten), {gap});  // 1 x 16
  const int logits_q =
      g.add(make_op(fb::OpType::QLinearMatMul),
            {flat, g.scale(0.01f), g.zero(10), g.constant(random_codes(DType::I8, {16, 7}, 9)),
             g.constant(random_tensor(DType::F32, {7}, 10, 0.001, 0.003)), g.constant(Tensor::zeros(DType::I8, {7})),
             g.scale(kLogitScale), g.zero(128), g.constant(random_tensor(DType::I32, {7}, 11, -2000, 2000))});
  return g.model(
      g.add(make_op(fb::OpType::DequantizeLinear, per_tensor), {logits_q, g.scale(kLogitScale), g.zero(128)}));
}

TEST(Int8GraphVk, RunsWholeOnGpuAndMatchesCpu) {
  MOTE_REQUIRE_INT8_SHADERS();
  auto model = int8_network();
  ASSERT_TRUE(model);
  const Tensor x = random_tensor(DType::F32, {1, 5, 11, 11}, 3, -2.0, 2.0);
  SessionOptions cpu;
  cpu.backend = Backend::kCpu;
  auto cpu_session = Session::create(model, cpu);
  ASSERT_TRUE(cpu_session.ok()) << cpu_session.status().to_string();
  auto expected = (*cpu_session)->run(std::vector<Tensor>{x});
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();
  const Tensor& want = (*expected)[0];
  for (GpuPrecision precision : {GpuPrecision::kF32, GpuPrecision::kF16Storage}) {
    SessionOptions vk;
    vk.backend = Backend::kVulkan;
    vk.gpu_precision = precision;
    vk.min_gpu_island_elements = 0;
    auto session = Session::create(model, vk);
    ASSERT_TRUE(session.ok()) << session.status().to_string();
    auto actual = (*session)->run(std::vector<Tensor>{x});
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    // (The placement exists once a run has planned.)
    const std::vector<OpPlacement> placement = (*session)->placement();
    EXPECT_EQ(placement.size(), 13u);
    for (const OpPlacement& p : placement) EXPECT_EQ(p.device, "vulkan") << p.op << ": " << p.reason;
    // The logits must spread (a broken chain tends to constants).
    std::set<float> values(want.data<float>(), want.data<float>() + want.numel());
    EXPECT_GE(values.size(), 5u) << testing::PrintToString(std::vector<float>(values.begin(), values.end()));
    expect_tensors_near((*actual)[0], want, 0.0, 2.01 * kLogitScale, "logits");
  }
}

}  // namespace
}  // namespace mote::test
