// Einsum lowered to ReduceSum / Transpose / Reshape / MatMul, against a naive
// evaluator written here (every assignment of the letters, summed), on the
// forms exports use: batched products, attention scores, an ellipsis, the
// implicit output, one-operand sums and transposes.
#include <map>
#include <random>

#include "converters/tests/convert_test_util.hpp"

namespace mote::convert::test {
namespace {

// out[letters of `out`] = sum over the other letters of prod operands.
Tensor naive_einsum(const std::vector<std::string>& subs, const std::vector<Tensor>& xs, const std::string& out) {
  std::map<char, int64_t> size;
  for (size_t k = 0; k < subs.size(); ++k) {
    for (size_t i = 0; i < subs[k].size(); ++i) size[subs[k][i]] = xs[k].dim(static_cast<int>(i));
  }
  Shape out_shape;
  for (char c : out) out_shape.push_back(size[c]);
  Tensor result = Tensor::zeros(DType::F32, out_shape);
  std::vector<char> letters;
  for (const auto& [c, n] : size) letters.push_back(c);
  std::map<char, int64_t> at;
  for (char c : letters) at[c] = 0;
  auto offset = [&](const std::string& s, const Shape& shape) {
    int64_t o = 0;
    for (size_t i = 0; i < s.size(); ++i) o = o * shape[i] + at[s[i]];
    return o;
  };
  while (true) {
    double term = 1;
    for (size_t k = 0; k < subs.size(); ++k) term *= xs[k].data<float>()[offset(subs[k], xs[k].shape())];
    result.data<float>()[offset(out, out_shape)] += static_cast<float>(term);
    size_t i = 0;
    while (i < letters.size() && ++at[letters[i]] == size[letters[i]]) at[letters[i++]] = 0;
    if (i == letters.size()) break;
  }
  return result;
}

Tensor random_floats(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t = Tensor::zeros(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

struct Case {
  std::string equation;
  std::vector<Shape> shapes;
  std::vector<std::string> explicit_subs;  // the equation with ellipsis and implicit output spelled out
  std::string explicit_out;
};

TEST(Einsum, LoweredFormsMatchANaiveEvaluator) {
  const std::vector<Case> cases = {
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, {"bij", "bjk"}, "bik"},
      {"ij,jk", {{3, 4}, {4, 2}}, {"ij", "jk"}, "ik"},
      {"...ij,...jk->...ik", {{2, 3, 4}, {2, 4, 5}}, {"zij", "zjk"}, "zik"},
      {"bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}, {"bhqd", "bhkd"}, "bhqk"},
      {"i,i->", {{6}, {6}}, {"i", "i"}, ""},
      {"ijk,jl->li", {{2, 3, 4}, {3, 5}}, {"ijk", "jl"}, "li"},
      {"ij->ji", {{3, 5}}, {"ij"}, "ji"},
      {"ij->i", {{3, 5}}, {"ij"}, "i"},
  };
  uint32_t seed = 3;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    OnnxBuilder b(12);
    std::vector<std::string> names;
    std::vector<Tensor> xs;
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      names.push_back(std::string("x").append(std::to_string(k)));  // not "x" + ...: GCC 12 bug 105651 warns
      b.input(names.back(), DType::F32, c.shapes[k]);
      xs.push_back(random_floats(c.shapes[k], seed++));
    }
    b.output("y");
    onnx::NodeProto& node = b.node("Einsum", names, {"y"}, "einsum");
    set_attr(node, "equation", c.equation);
    Converted converted = convert(b);
    ASSERT_TRUE(converted.model);
    auto out = converted.run(xs);
    ASSERT_EQ(out.size(), 1u);
    expect_near(out[0], naive_einsum(c.explicit_subs, xs, c.explicit_out), 1e-5);
  }
}

TEST(Einsum, RefusesADiagonalByName) {
  OnnxBuilder b(12);
  b.input("x", DType::F32, {3, 3}).output("y");
  set_attr(b.node("Einsum", {"x"}, {"y"}, "trace"), "equation", std::string("ii->i"));
  Status st = try_convert(b);
  ASSERT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("diagonal"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("trace"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace mote::convert::test
