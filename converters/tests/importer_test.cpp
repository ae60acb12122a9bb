// The ONNX front end: error reporting, external data, opset rewrites.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "converters/onnx/importer.hpp"
#include "converters/onnx/onnx_file.hpp"
#include "converters/tests/convert_test_util.hpp"

namespace mote::convert::test {
namespace {

namespace fs = std::filesystem;

TEST(Import, ListsEveryUnsupportedNodeAtOnce) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3}).output("y");
  b.node("Frobnicate", {"x"}, {"a"}, "first");
  b.node("Relu", {"a"}, {"b"});
  b.node("Defenestrate", {"b"}, {"y"}, "second");
  Status st = try_convert(b);
  ASSERT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("2 unsupported nodes"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Frobnicate 'first' (opset 13)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Defenestrate 'second' (opset 13)"), std::string::npos) << st.message();
}

// onnxruntime's com.microsoft QLinearAdd (its QOperator format) maps to
// Mote's op, its omitted C zero point a 0 of A's type. Worked by hand:
// real A = 0.05 (A - 128), real B = 0.1 (B - 100), sums / 0.3 =
// {-51.3, -3.7, 51.7, -21.3, 21.2}, rounded and saturated to uint8.
TEST(Import, MicrosoftQLinearAddMapsToMoteOp) {
  OnnxBuilder b(13);
  b.input("a", DType::U8, {5}).input("b", DType::U8, {5}).output("c", DType::U8);
  b.initializer("a_scale", Tensor::from_vector<float>({}, {0.05f}));
  b.initializer("a_zero", Tensor::from_vector<uint8_t>({}, {128}));
  b.initializer("b_scale", Tensor::from_vector<float>({}, {0.1f}));
  b.initializer("b_zero", Tensor::from_vector<uint8_t>({}, {100}));
  b.initializer("c_scale", Tensor::from_vector<float>({}, {0.3f}));
  b.node("QLinearAdd", {"a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "c_scale"}, {"c"}, "add")
      .set_domain("com.microsoft");
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::QLinearAdd), 1);
  const std::vector<Tensor> inputs = {Tensor::from_vector<uint8_t>({5}, {0, 50, 128, 200, 255}),
                                      Tensor::from_vector<uint8_t>({5}, {10, 128, 255, 0, 100})};
  const std::vector<double> want = {0, 0, 52, 0, 21};
  for (Backend backend : {Backend::kReference, Backend::kCpu}) {
    EXPECT_EQ(c.run(inputs, backend)[0].to_doubles(), want);
  }
}

// onnxruntime's QLinearSigmoid with both zero points omitted (0 of X's
// type) maps to QLinearActivation: real X = 0.05 (X - 128) = {-6.4, 0,
// 6.35}, sigmoid / (1/256) = {0.42, 128, 255.55}, saturated at 255.
TEST(Import, MicrosoftQLinearSigmoidMapsToActivation) {
  OnnxBuilder b(13);
  b.input("x", DType::U8, {3}).output("y", DType::U8);
  b.initializer("x_scale", Tensor::from_vector<float>({}, {0.05f}));
  b.initializer("x_zero", Tensor::from_vector<uint8_t>({}, {128}));
  b.initializer("y_scale", Tensor::from_vector<float>({}, {1.0f / 256}));
  b.node("QLinearSigmoid", {"x", "x_scale", "x_zero", "y_scale"}, {"y"}, "gate").set_domain("com.microsoft");
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::QLinearActivation), 1);
  const std::vector<double> want = {0, 128, 255};
  for (Backend backend : {Backend::kReference, Backend::kCpu}) {
    EXPECT_EQ(c.run({Tensor::from_vector<uint8_t>({3}, {0, 128, 255})}, backend)[0].to_doubles(), want);
  }
}

// A com.microsoft operator without a mapper, and another domain, are
// unsupported nodes that say so.
TEST(Import, OtherMicrosoftOpsAndDomainsAreNamed) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3}).output("y");
  b.node("FusedConv", {"x"}, {"a"}, "fused").set_domain("com.microsoft");
  b.node("Normalizer", {"a"}, {"y"}, "ml").set_domain("ai.onnx.ml");
  Status st = try_convert(b);
  ASSERT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("no mapper for this com.microsoft op type"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("domain 'ai.onnx.ml' is not supported"), std::string::npos) << st.message();
}

// Nodes inside If/Loop bodies are listed with their path, grouped by op type,
// so a user learns about every one of them from one run.
TEST(Import, ListsUnsupportedNodesInsideSubgraphsWithTheirPath) {
  OnnxBuilder b(17);
  b.input("c", DType::Bool, {}).input("x", DType::F32, {3}).output("y");
  onnx::NodeProto& branch = b.node("If", {"c"}, {"y"}, "branch");
  auto add_body = [&](const std::string& attr, const std::vector<std::string>& op_types) {
    auto* a = branch.add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = a->mutable_g();
    std::string prev = "x";
    for (size_t i = 0; i < op_types.size(); ++i) {
      onnx::NodeProto* n = g->add_node();
      n->set_op_type(op_types[i]);
      n->set_name(attr + "_" + std::to_string(i));
      n->add_input(prev);
      prev = attr + "_out" + std::to_string(i);
      n->add_output(prev);
    }
    g->add_output()->set_name(prev);
    return g;
  };
  add_body("then_branch", {"TfIdfVectorizer", "Relu", "TfIdfVectorizer"});
  onnx::GraphProto* else_body = add_body("else_branch", {"StringNormalizer"});
  // A Loop nested in a branch: its body is walked too.
  onnx::NodeProto* loop = else_body->add_node();
  loop->set_op_type("Loop");
  loop->set_name("inner_loop");
  auto* body = loop->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  onnx::NodeProto* deep = body->mutable_g()->add_node();
  deep->set_op_type("TfIdfVectorizer");
  deep->set_name("deep");
  Status st = try_convert(b);
  ASSERT_EQ(st.code(), StatusCode::kUnsupported);
  const std::string& m = st.message();
  // If and Loop have mappers: only the nodes inside that none takes are listed.
  EXPECT_NE(m.find("4 unsupported nodes of 2 op types"), std::string::npos) << m;
  EXPECT_NE(m.find("TfIdfVectorizer (3 nodes):"), std::string::npos) << m;
  EXPECT_NE(m.find("If 'branch' / then_branch / TfIdfVectorizer 'then_branch_0'"), std::string::npos) << m;
  EXPECT_NE(m.find("If 'branch' / then_branch / TfIdfVectorizer 'then_branch_2'"), std::string::npos) << m;
  EXPECT_NE(m.find("If 'branch' / else_branch / StringNormalizer 'else_branch_0'"), std::string::npos) << m;
  EXPECT_NE(m.find("If 'branch' / else_branch / Loop 'inner_loop' / body / TfIdfVectorizer 'deep'"), std::string::npos) << m;
  EXPECT_EQ(m.find("Relu"), std::string::npos) << "a supported nested node is not listed:\n" << m;
  EXPECT_EQ(m.find("If (1 node)"), std::string::npos) << m;
  // Most frequent op type first.
  EXPECT_LT(m.find("TfIdfVectorizer (3 nodes)"), m.find("StringNormalizer (1 node)")) << m;
}

TEST(Import, AnUndefinedInputNamesTheNode) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3}).output("y");
  b.node("Add", {"x", "nowhere"}, {"y"}, "adder");
  Status st = try_convert(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidModel);
  EXPECT_NE(st.message().find("'adder'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'nowhere'"), std::string::npos) << st.message();
}

TEST(Import, WrongAttributeTypeIsAnErrorNotACrash) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {1, 1, 4, 4}).output("y");
  b.initializer("w", random_f32({1, 1, 3, 3}, 1));
  set_attr(b.node("Conv", {"x", "w"}, {"y"}, "conv"), "group", 2.5f);
  Status st = try_convert(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidModel);
  EXPECT_NE(st.message().find("attribute 'group' must be INT"), std::string::npos) << st.message();
}

TEST(Import, GarbageAndTruncatedFilesAreErrors) {
  std::string junk = "this is not a protobuf \xff\xff\xff\xff\x0f";
  EXPECT_FALSE(parse_onnx(junk.data(), junk.size(), "junk.onnx").ok());
  OnnxBuilder b(13);
  b.input("x", DType::F32, {3}).output("y");
  b.initializer("w", random_f32({64}, 1));
  b.node("Relu", {"x"}, {"y"});
  std::string bytes = b.bytes();
  for (size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    auto model = parse_onnx(bytes.data(), cut, "cut.onnx");
    if (!model.ok()) continue;  // rejected while parsing: fine
    // Parsed (protobuf allows some cuts): the importer must then refuse or
    // succeed cleanly.
    auto imported = import_onnx(**model, "cut.onnx", ".");
    (void)imported;
  }
}

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mote-external-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "model");
    std::vector<float> w = {1, 2, 3, 4};
    std::ofstream(dir_ / "model" / "weights.bin", std::ios::binary)
        .write("padding!", 8)
        .write(reinterpret_cast<const char*>(w.data()), 16);
    std::ofstream(dir_ / "secret.bin", std::ios::binary).write(reinterpret_cast<const char*>(w.data()), 16);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes model/model.onnx whose initializer 'w' lives at `location`.
  std::string write_model(const std::string& location, int64_t offset) {
    OnnxBuilder b(13);
    b.input("x", DType::F32, {4}).output("y");
    auto* t = b.model().mutable_graph()->add_initializer();
    t->set_name("w");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(4);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t->add_external_data();
    e->set_key("location");
    e->set_value(location);
    e = t->add_external_data();
    e->set_key("offset");
    e->set_value(std::to_string(offset));
    e = t->add_external_data();
    e->set_key("length");
    e->set_value("16");
    b.node("Add", {"x", "w"}, {"y"});
    std::string path = (dir_ / "model" / "model.onnx").string();
    std::ofstream(path, std::ios::binary) << b.bytes();
    return path;
  }

  fs::path dir_;
};

TEST_F(ExternalData, WeightsAreReadRelativeToTheModel) {
  auto imported = import_onnx_file(write_model("weights.bin", 8));
  ASSERT_TRUE(imported.ok()) << imported.status().to_string();
  bool found = false;
  for (const Value& v : imported->graph.values) {
    if (v.name != "w") continue;
    found = true;
    ASSERT_TRUE(v.is_constant());
    EXPECT_EQ(v.data->to_doubles(), (std::vector<double>{1, 2, 3, 4}));
  }
  EXPECT_TRUE(found);
}

TEST_F(ExternalData, PathsLeavingTheModelDirectoryAreRefused) {
  for (const std::string& location :
       std::vector<std::string>{"../secret.bin", (dir_ / "secret.bin").string(), "sub/../../secret.bin"}) {
    auto imported = import_onnx_file(write_model(location, 0));
    ASSERT_FALSE(imported.ok()) << location;
    EXPECT_EQ(imported.status().code(), StatusCode::kInvalidModel) << imported.status().to_string();
  }
}

TEST_F(ExternalData, RangesOutsideTheFileAreRefused) {
  auto imported = import_onnx_file(write_model("weights.bin", 16));
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.status().message().find("lies outside"), std::string::npos) << imported.status().message();
}

// Opset 11 Softmax normalises over everything from `axis` on.
TEST(Opsets, Softmax11CoercesTo2D) {
  OnnxBuilder b(11);
  b.input("x", DType::F32, {2, 3, 4}).output("y");
  set_attr(b.node("Softmax", {"x"}, {"y"}), "axis", int64_t{1});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  Tensor x = random_f32({2, 3, 4}, 1, -2, 2);
  std::vector<Tensor> out = c.run({x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (Shape{2, 3, 4}));
  for (int n = 0; n < 2; ++n) {
    double sum = 0;
    for (int k = 0; k < 12; ++k) sum += std::exp(x.data<float>()[n * 12 + k]);
    for (int k = 0; k < 12; ++k) {
      EXPECT_NEAR(out[0].data<float>()[n * 12 + k], std::exp(x.data<float>()[n * 12 + k]) / sum, 1e-6);
    }
  }
}

TEST(Opsets, Slice9TakesAttributes) {
  OnnxBuilder b(9);
  b.input("x", DType::F32, {4, 5}).output("y");
  auto& slice = b.node("Slice", {"x"}, {"y"});
  set_attr(slice, "starts", std::vector<int64_t>{1, -3});
  set_attr(slice, "ends", std::vector<int64_t>{3, 1000});
  set_attr(slice, "axes", std::vector<int64_t>{0, 1});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  Tensor x = random_f32({4, 5}, 1);
  std::vector<Tensor> out = c.run({x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].data<float>()[0], x.data<float>()[1 * 5 + 2]);
}

TEST(Opsets, ReduceMean13TakesAxesAsAttribute) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {2, 3}).output("y");
  auto& r = b.node("ReduceMean", {"x"}, {"y"});
  set_attr(r, "axes", std::vector<int64_t>{1});
  set_attr(r, "keepdims", int64_t{0});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out = c.run({x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_doubles(), (std::vector<double>{2, 5}));
}

// Opset 6: B of shape [3] added along axis 1 of A [2, 3, 4].
TEST(Opsets, LegacyBroadcastWithAxis) {
  OnnxBuilder b(6);
  b.input("a", DType::F32, {2, 3, 4}).input("b", DType::F32, {3}).output("y");
  auto& add = b.node("Add", {"a", "b"}, {"y"});
  set_attr(add, "broadcast", int64_t{1});
  set_attr(add, "axis", int64_t{1});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  Tensor a = Tensor::zeros(DType::F32, {2, 3, 4});
  std::vector<Tensor> out = c.run({a, Tensor::from_vector<float>({3}, {10, 20, 30})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(out[0].data<float>()[0], 10);
  EXPECT_EQ(out[0].data<float>()[4], 20);
  EXPECT_EQ(out[0].data<float>()[23], 30);
}

TEST(Rewrites, SumBecomesAChainOfAdds) {
  OnnxBuilder b(13);
  b.input("a", DType::F32, {2}).input("b", DType::F32, {2}).input("c", DType::F32, {2}).output("y");
  b.node("Sum", {"a", "b", "c"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Add), 2);
  std::vector<Tensor> out = c.run({Tensor::from_vector<float>({2}, {1, 2}), Tensor::from_vector<float>({2}, {3, 4}),
                                   Tensor::from_vector<float>({2}, {5, 6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_doubles(), (std::vector<double>{9, 12}));
}

TEST(Rewrites, CastLikeBecomesCast) {
  OnnxBuilder b(15);
  b.input("x", DType::F32, {2}).input("like", DType::I64, {1}).output("y", DType::I64);
  b.node("CastLike", {"x", "like"}, {"y"});
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Cast), 1);
  EXPECT_EQ(c.model->outputs()[0].dtype, DType::I64);
}

TEST(Rewrites, UpsampleBecomesResize) {
  OnnxBuilder b(7);
  b.input("x", DType::F32, {1, 1, 2, 2}).output("y");
  auto& up = b.node("Upsample", {"x"}, {"y"});
  auto* a = up.add_attribute();
  a->set_name("scales");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float s : {1.0f, 1.0f, 2.0f, 2.0f}) a->add_floats(s);
  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Resize), 1);
  std::vector<Tensor> out = c.run({Tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_doubles(), (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(InputShapes, AMismatchWithTheDeclarationIsAnError) {
  OnnxBuilder b(13);
  b.input("x", DType::F32, {-1, 4}).output("y");
  b.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(try_convert(b, {.input_shapes = {{"x", {2, 5}}}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(try_convert(b, {.input_shapes = {{"nope", {2, 4}}}}).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mote::convert::test
