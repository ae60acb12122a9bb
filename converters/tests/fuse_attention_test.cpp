// Attention fusion: the written-out MatMul / Softmax / MatMul attention of
// older exports becomes one Attention op. The unfused conversion on the
// reference backend (MatMul, Softmax, Add kernels in double) is the
// reference; the fused model runs on the reference and the CPU backends.
#include <cmath>

#include "converters/tests/convert_test_util.hpp"

namespace mote::convert::test {
namespace {

void expect_fused_matches(OnnxBuilder& b, const std::vector<Tensor>& inputs) {
  for (Backend backend : {Backend::kReference, Backend::kCpu}) {
    SCOPED_TRACE(backend == Backend::kCpu ? "cpu" : "reference");
    expect_same_outputs(b, inputs, 1e-5, {}, backend);
  }
}

Tensor scalar(float v) { return Tensor::from_vector<float>({}, {v}); }

// torch 1.13's nn.MultiheadAttention: heads folded into the batch, Q divided
// by sqrt(head size), K^T a Transpose of K laid out [len, heads, size].
TEST(FuseAttention, TorchMultiheadAttentionBecomesOneAttention) {
  OnnxBuilder b(13);
  b.input("q", DType::F32, {4, 16, 8}).input("k", DType::F32, {16, 4, 8}).input("v", DType::F32, {4, 16, 8});
  b.output("y");
  b.initializer("root", scalar(std::sqrt(8.0f)));
  b.node("Div", {"q", "root"}, {"qs"});
  set_attr(b.node("Transpose", {"k"}, {"kt"}), "perm", std::vector<int64_t>{1, 2, 0});
  b.node("MatMul", {"qs", "kt"}, {"s"});
  set_attr(b.node("Softmax", {"s"}, {"p"}), "axis", int64_t{-1});
  b.node("MatMul", {"p", "v"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.counter("fuse_attention", "Attention"), 1);
  EXPECT_EQ(c.count(fb::OpType::Attention), 1);
  EXPECT_EQ(c.count(fb::OpType::MatMul) + c.count(fb::OpType::Softmax) + c.count(fb::OpType::Div), 0);
  EXPECT_EQ(c.count(fb::OpType::Transpose), 1);  // turned to give K
  expect_fused_matches(b, {random_f32({4, 16, 8}, 1, -2, 2), random_f32({16, 4, 8}, 2, -2, 2),
                           random_f32({4, 16, 8}, 3)});
}

// BERT's form: 4-D heads, K transposed on its last two axes (the Transpose
// goes), the scale on the scores, then an additive padding mask.
TEST(FuseAttention, BertScaledMaskedScoresBecomeOneAttention) {
  OnnxBuilder b(13);
  b.input("q", DType::F32, {2, 3, 5, 8}).input("k", DType::F32, {2, 3, 6, 8}).input("v", DType::F32, {2, 3, 6, 4});
  b.input("mask", DType::F32, {2, 1, 1, 6}).output("y");
  b.initializer("root", scalar(std::sqrt(8.0f)));
  set_attr(b.node("Transpose", {"k"}, {"kt"}), "perm", std::vector<int64_t>{0, 1, 3, 2});
  b.node("MatMul", {"q", "kt"}, {"s"});
  b.node("Div", {"s", "root"}, {"scaled"});
  b.node("Add", {"mask", "scaled"}, {"masked"});
  set_attr(b.node("Softmax", {"masked"}, {"p"}), "axis", int64_t{3});
  b.node("MatMul", {"p", "v"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Attention), 1);
  EXPECT_EQ(c.model->graph().ops.size(), 1u);
  Tensor mask = random_f32({2, 1, 1, 6}, 4, -1, 0);
  mask.data<float>()[4] = -1e4f;  // a padded key
  expect_fused_matches(b, {random_f32({2, 3, 5, 8}, 1, -2, 2), random_f32({2, 3, 6, 8}, 2, -2, 2),
                           random_f32({2, 3, 6, 4}, 3), mask});
}

// K^T given as is: a Transpose to K is added; a 3-D mask per batch moves to
// the 4-D scores' layout; scales on both Q and K^T multiply.
TEST(FuseAttention, KeysWithoutATransposeAndA3dMask) {
  OnnxBuilder b(13);
  b.input("q", DType::F32, {3, 5, 8}).input("kt", DType::F32, {3, 8, 7}).input("v", DType::F32, {3, 7, 2});
  b.input("mask", DType::F32, {3, 5, 7}).output("y");
  b.initializer("a", scalar(0.5f)).initializer("b", scalar(0.25f));
  b.node("Mul", {"q", "a"}, {"qs"});
  b.node("Mul", {"b", "kt"}, {"ks"});
  b.node("MatMul", {"qs", "ks"}, {"s"});
  b.node("Add", {"s", "mask"}, {"masked"});
  set_attr(b.node("Softmax", {"masked"}, {"p"}), "axis", int64_t{-1});
  b.node("MatMul", {"p", "v"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Attention), 1);
  EXPECT_EQ(c.count(fb::OpType::Transpose), 1);
  EXPECT_EQ(c.count(fb::OpType::Unsqueeze), 1);
  EXPECT_EQ(c.count(fb::OpType::Mul), 0);
  expect_fused_matches(b, {random_f32({3, 5, 8}, 1, -2, 2), random_f32({3, 8, 7}, 2, -2, 2), random_f32({3, 7, 2}, 3),
                           random_f32({3, 5, 7}, 4, -3, 0)});
}

// Forms that would change meaning or lose a value stay unfused: the scale
// after the mask (it would scale the mask too), a mask broadcast along the
// keys (Attention pads a short one instead), the softmax over another axis,
// and scores that are also a graph output.
TEST(FuseAttention, LeftAloneWhenTheFusedOpWouldDiffer) {
  enum class Form { kScaleAfterMask, kMaskAlongQueries, kSoftmaxOverQueries, kScoresAreAnOutput };
  for (Form form : {Form::kScaleAfterMask, Form::kMaskAlongQueries, Form::kSoftmaxOverQueries, Form::kScoresAreAnOutput}) {
    SCOPED_TRACE(static_cast<int>(form));
    const Shape mask_shape = form == Form::kMaskAlongQueries ? Shape{5, 1} : Shape{5, 6};
    OnnxBuilder b(13);
    b.input("q", DType::F32, {2, 5, 4}).input("k", DType::F32, {2, 6, 4}).input("v", DType::F32, {2, 6, 3});
    b.input("mask", DType::F32, mask_shape).output("y");
    b.initializer("c", scalar(0.5f));
    set_attr(b.node("Transpose", {"k"}, {"kt"}), "perm", std::vector<int64_t>{0, 2, 1});
    b.node("MatMul", {"q", "kt"}, {"s"});
    if (form == Form::kScaleAfterMask) {
      b.node("Add", {"s", "mask"}, {"masked"});
      b.node("Mul", {"masked", "c"}, {"scores"});
    } else {
      b.node("Mul", {"s", "c"}, {"scaled"});
      b.node("Add", {"scaled", "mask"}, {"scores"});
    }
    set_attr(b.node("Softmax", {"scores"}, {"p"}), "axis", int64_t{form == Form::kSoftmaxOverQueries ? 1 : 2});
    b.node("MatMul", {"p", "v"}, {"y"});
    if (form == Form::kScoresAreAnOutput) b.output("s");
    Converted c = convert(b);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.count(fb::OpType::Attention), 0);
    EXPECT_EQ(c.count(fb::OpType::Softmax), 1);
    expect_same_outputs(b, {random_f32({2, 5, 4}, 1), random_f32({2, 6, 4}, 2), random_f32({2, 6, 3}, 3),
                            random_f32(mask_shape, 4, -1, 0)});
  }
}

}  // namespace
}  // namespace mote::convert::test
