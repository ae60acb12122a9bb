// Names survive conversion: graph inputs and outputs keep their ONNX names
// exactly, and intermediate tensors keep theirs where they survive the
// passes, whatever the source does with its names. Every case is checked
// through the converted .mote model's own inputs and outputs, with and
// without the optimising passes, and the model must still run.
#include <algorithm>
#include <cmath>

#include "converters/tests/convert_test_util.hpp"

namespace mote::convert::test {
namespace {

std::vector<std::string> names_of(const std::vector<TensorDesc>& list) {
  std::vector<std::string> names;
  for (const TensorDesc& d : list) names.push_back(d.name);
  return names;
}

// Every tensor name in the converted model (inputs, constants, op outputs).
std::vector<std::string> tensor_names(const Model& model) {
  std::vector<std::string> names;
  for (const auto& t : model.graph().tensors) names.push_back(t->name);
  return names;
}

bool has_tensor(const Model& model, const std::string& name) {
  auto names = tensor_names(model);
  return std::find(names.begin(), names.end(), name) != names.end();
}

class Names : public ::testing::TestWithParam<bool> {
 protected:
  // Converts with the optimising passes on or off (the parameter) and checks
  // the .mote model's interface against the ONNX one.
  Converted convert_and_check(OnnxBuilder& b) {
    Converted c = convert(b, {.optimize = GetParam()});
    if (!c.model) return c;
    std::vector<std::string> onnx_inputs, onnx_outputs;
    for (const auto& i : b.model().graph().input()) onnx_inputs.push_back(i.name());
    for (const auto& o : b.model().graph().output()) onnx_outputs.push_back(o.name());
    EXPECT_EQ(names_of(c.model->inputs()), onnx_inputs);
    EXPECT_EQ(names_of(c.model->outputs()), onnx_outputs);
    // The interface the converter recorded agrees, so mote-info finds no rename.
    auto source = source_interface(*c.model);
    EXPECT_TRUE(source.has_value());
    if (source) {
      std::vector<std::string> recorded_inputs;
      for (const SourceInput& in : source->inputs) recorded_inputs.push_back(in.name);
      EXPECT_EQ(recorded_inputs, onnx_inputs);
      EXPECT_EQ(source->outputs, onnx_outputs);
    }
    return c;
  }
};

Tensor ramp(const Shape& shape) {
  Tensor t = Tensor::zeros(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i) - 2.5f;
  return t;
}

float relu(float v) { return v > 0 ? v : 0; }

// The reproduction from real exporters that name each node after its output.
TEST_P(Names, NodeNamedLikeItsOutputAndALaterTensor) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {2, 3}).output("a_2");
  b.node("Relu", {"x"}, {"a"}, "a");
  b.node("Neg", {"a"}, {"a_2"}, "a_2");
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  Tensor x = ramp({2, 3});
  std::vector<Tensor> out = c.run({x});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(out[0].data<float>()[i], -relu(x.data<float>()[i]));
}

TEST_P(Names, NodeNamedLikeAGraphInput) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {4}).output("y");
  b.node("Relu", {"x"}, {"y"}, "x");
  convert_and_check(b);
}

TEST_P(Names, TensorNamedLikeAnOp) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {4}).output("second").output("first");
  b.node("Relu", {"x"}, {"second"}, "first");
  b.node("Neg", {"second"}, {"first"}, "second");
  convert_and_check(b);
}

TEST_P(Names, OutputThatIsAlsoAnInput) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {3}).output("x").output("y");
  b.node("Relu", {"x"}, {"y"}, "relu");
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  Tensor x = ramp({3});
  std::vector<Tensor> out = c.run({x});
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(out[0].data<float>()[i], x.data<float>()[i]);
}

TEST_P(Names, OutputThatAnotherOpReads) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {3}).output("mid").output("y");
  b.node("Relu", {"x"}, {"mid"}, "mid");
  b.node("Neg", {"mid"}, {"y"}, "mid_2");
  convert_and_check(b);
}

TEST_P(Names, DuplicateAndEmptyNodeNames) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {3}).output("z");
  b.node("Relu", {"x"}, {"a"}, "n");
  b.node("Neg", {"a"}, {"b"}, "n");
  b.node("Relu", {"b"}, {"c"}).clear_name();
  b.node("Neg", {"c"}, {"z"}).clear_name();
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  // Op names stay unique among ops so placement and per-op reports can tell
  // them apart.
  std::vector<std::string> ops;
  for (const auto& op : c.model->graph().ops) ops.push_back(op->name);
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(std::adjacent_find(ops.begin(), ops.end()), ops.end());
}

TEST_P(Names, SlashesColonsAndSpaces) {
  OnnxBuilder b(17);
  b.input("input:0", DType::F32, {1, 3}).output("model/head/output:0").output("scores out");
  b.node("Relu", {"input:0"}, {"block 1/relu:0"}, "block 1/relu");
  b.node("Neg", {"block 1/relu:0"}, {"model/head/output:0"}, "model/head/neg");
  b.node("Relu", {"model/head/output:0"}, {"scores out"}, "scores out");
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  EXPECT_TRUE(has_tensor(*c.model, "block 1/relu:0"));
}

// A mapper's helper tensor ("<node>/partial_1" when Sum becomes a chain of
// Adds) must not take a name the source uses later.
TEST_P(Names, HelperTensorsNeverTakeASourceName) {
  OnnxBuilder b(17);
  b.input("a", DType::F32, {3}).input("b", DType::F32, {3}).input("c", DType::F32, {3});
  b.output("s/partial_1");
  b.node("Sum", {"a", "b", "c"}, {"y"}, "s");
  b.node("Relu", {"y"}, {"s/partial_1"}, "relu");
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  Tensor a = ramp({3}), bb = ramp({3}), cc = ramp({3});
  std::vector<Tensor> out = c.run({a, bb, cc});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(out[0].data<float>()[i], relu(3 * a.data<float>()[i]));
}

// Outputs the passes rewrite: an Identity removed, an activation fused into
// the op before it, a BatchNormalization folded into a Conv, a branch folded
// to a constant.
TEST_P(Names, OutputsThatPassesRewrite) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {1, 1, 3, 3}).output("identity_out").output("bn_out").output("folded");
  b.initializer("w", random_f32({1, 1, 1, 1}, 3));
  b.initializer("scale", Tensor::from_vector<float>({1}, {2.0f}));
  b.initializer("bias", Tensor::from_vector<float>({1}, {0.5f}));
  b.initializer("mean", Tensor::from_vector<float>({1}, {0.1f}));
  b.initializer("var", Tensor::from_vector<float>({1}, {1.0f}));
  b.initializer("k1", Tensor::from_vector<float>({1}, {1.0f}));
  b.initializer("k2", Tensor::from_vector<float>({1}, {2.0f}));
  b.node("Conv", {"x", "w"}, {"conv"}, "conv");
  b.node("Relu", {"conv"}, {"relu"}, "relu");
  b.node("Identity", {"relu"}, {"identity_out"}, "identity");
  b.node("Conv", {"x", "w"}, {"conv2"}, "conv2");
  b.node("BatchNormalization", {"conv2", "scale", "bias", "mean", "var"}, {"bn_out"}, "bn");
  b.node("Add", {"k1", "k2"}, {"folded"}, "add_constants");
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  std::vector<Tensor> out = c.run({ramp({1, 1, 3, 3})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].data<float>()[0], 3.0f);
}

// Intermediate tensors that survive the passes (no activation fuses here)
// keep their ONNX names, so
// --placement, --per-op and error messages speak the user's names.
TEST_P(Names, SurvivingIntermediatesKeepTheirNames) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {2, 2}).output("y");
  b.initializer("m", random_f32({2, 2}, 5));
  b.node("MatMul", {"x", "m"}, {"features/matmul_out"}, "features/matmul");
  b.node("Neg", {"features/matmul_out"}, {"head/neg_out"}, "head/neg");
  b.node("Abs", {"head/neg_out"}, {"y"}, "abs");
  Converted c = convert_and_check(b);
  ASSERT_TRUE(c.model);
  EXPECT_TRUE(has_tensor(*c.model, "features/matmul_out"));
  EXPECT_TRUE(has_tensor(*c.model, "head/neg_out"));
  EXPECT_TRUE(has_tensor(*c.model, "m"));
}

INSTANTIATE_TEST_SUITE_P(Passes, Names, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "optimized" : "no_optimize"; });

// The symbolic dimensions of the inputs are recorded for the check and for
// mote-info.
TEST(SourceInterface, RecordsSymbolicDimensions) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {-1, 3, 8, 8}).output("y");
  b.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(
      2)->set_dim_param("height, px");
  b.node("Relu", {"x"}, {"y"}, "relu");
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  auto source = source_interface(*c.model);
  ASSERT_TRUE(source.has_value());
  ASSERT_EQ(source->inputs.size(), 1u);
  EXPECT_EQ(source_dims_to_string(source->inputs[0]), "[N, 3, height, px, 8]");
  ASSERT_EQ(source->inputs[0].dims.size(), 4u);
  EXPECT_EQ(source->inputs[0].dims[2].symbol, "height, px");
  EXPECT_EQ(source->inputs[0].dims[2].value, -1);
  EXPECT_EQ(source->inputs[0].dims[1].value, 3);
}

}  // namespace
}  // namespace mote::convert::test
