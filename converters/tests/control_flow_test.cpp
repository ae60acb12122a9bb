// ONNX If and Loop through the converter: bodies that read the enclosing
// scopes (captures, nested two deep), and an If on a constant condition
// folded into the branch it takes. Expected values are worked out by hand.
#include "converters/tests/convert_test_util.hpp"
#include "onnx.pb.h"

namespace mote::convert::test {
namespace {

void add_typed(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int elem_type) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(outputs[0]);
  for (const auto& in : inputs) n->add_input(in);
  for (const auto& out : outputs) n->add_output(out);
  return n;
}

onnx::GraphProto* graph_attr(onnx::NodeProto& node, const std::string& name) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

TEST(ControlFlowImport, IfOnAConstantConditionBecomesTheBranchItTakes) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {3}).output("y");
  Tensor yes = Tensor::zeros(DType::Bool, {});
  *yes.data<bool>() = true;
  b.initializer("always", yes);
  onnx::NodeProto& branch = b.node("If", {"always"}, {"y"}, "branch");
  onnx::GraphProto* then_g = graph_attr(branch, "then_branch");
  add_node(then_g, "Relu", {"x"}, {"relu_x"});
  add_typed(then_g->mutable_output(), "relu_x", onnx::TensorProto::FLOAT);
  onnx::GraphProto* else_g = graph_attr(branch, "else_branch");
  add_node(else_g, "Neg", {"x"}, {"neg_x"});
  add_typed(else_g->mutable_output(), "neg_x", onnx::TensorProto::FLOAT);

  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::If), 0);
  EXPECT_EQ(c.count(fb::OpType::Relu), 1);
  EXPECT_EQ(c.counter("fold_if", "If folded"), 1);
  EXPECT_EQ(c.model->outputs()[0].name, "y");
  auto out = c.run({Tensor::from_vector<float>({3}, {-1, 2, -3})});
  EXPECT_EQ(out[0].to_doubles(), (std::vector<double>{0, 2, 0}));
}

// acc = x; repeat M times: acc = flag ? acc + x : acc - x. The If inside the
// Loop body reads `flag` and `x` from the model's graph (two scopes up) and
// `acc` from the body.
TEST(ControlFlowImport, NestedBodiesCaptureFromEveryEnclosingScope) {
  OnnxBuilder b(17);
  b.input("x", DType::F32, {2}).input("flag", DType::Bool, {}).input("M", DType::I64, {}).output("acc_final");
  onnx::NodeProto& loop = b.node("Loop", {"M", "", "x"}, {"acc_final"}, "repeat");
  onnx::GraphProto* body = graph_attr(loop, "body");
  add_typed(body->mutable_input(), "i", onnx::TensorProto::INT64);
  add_typed(body->mutable_input(), "c", onnx::TensorProto::BOOL);
  add_typed(body->mutable_input(), "acc", onnx::TensorProto::FLOAT);
  add_node(body, "Identity", {"c"}, {"c_out"});
  onnx::NodeProto* branch = add_node(body, "If", {"flag"}, {"acc_out"});
  onnx::GraphProto* then_g = graph_attr(*branch, "then_branch");
  add_node(then_g, "Add", {"acc", "x"}, {"sum"});
  add_typed(then_g->mutable_output(), "sum", onnx::TensorProto::FLOAT);
  onnx::GraphProto* else_g = graph_attr(*branch, "else_branch");
  add_node(else_g, "Sub", {"acc", "x"}, {"difference"});
  add_typed(else_g->mutable_output(), "difference", onnx::TensorProto::FLOAT);
  add_typed(body->mutable_output(), "c_out", onnx::TensorProto::BOOL);
  add_typed(body->mutable_output(), "acc_out", onnx::TensorProto::FLOAT);

  Converted c = convert(b);
  ASSERT_TRUE(c.model);
  EXPECT_EQ(c.count(fb::OpType::Loop), 1);
  Tensor x = Tensor::from_vector<float>({2}, {1.5f, -2});
  auto flag = [](bool v) {
    Tensor t = Tensor::zeros(DType::Bool, {});
    *t.data<bool>() = v;
    return t;
  };
  auto added = c.run({x, flag(true), Tensor::from_vector<int64_t>({}, {3})});
  EXPECT_EQ(added[0].to_doubles(), (std::vector<double>{6, -8}));
  auto subtracted = c.run({x, flag(false), Tensor::from_vector<int64_t>({}, {3})});
  EXPECT_EQ(subtracted[0].to_doubles(), (std::vector<double>{-3, 4}));
}

// acc = x0; M times: acc = acc + x; plus a scan output of the iteration
// number as f32. With M a small constant the Loop becomes copies of its
// body; with a large one it stays a Loop. Both give the same values.
Converted loop_with_trip_count(int64_t trips) {
  OnnxBuilder b(17);
  b.input("x0", DType::F32, {2}).input("x", DType::F32, {2}).output("acc").output("iterations");
  b.initializer("M", Tensor::from_vector<int64_t>({}, {trips}));
  onnx::NodeProto& loop = b.node("Loop", {"M", "", "x0"}, {"acc", "iterations"}, "repeat");
  onnx::GraphProto* body = graph_attr(loop, "body");
  add_typed(body->mutable_input(), "i", onnx::TensorProto::INT64);
  add_typed(body->mutable_input(), "c", onnx::TensorProto::BOOL);
  add_typed(body->mutable_input(), "acc_in", onnx::TensorProto::FLOAT);
  add_node(body, "Identity", {"c"}, {"c_out"});
  add_node(body, "Add", {"acc_in", "x"}, {"acc_out"});
  onnx::NodeProto* cast = add_node(body, "Cast", {"i"}, {"i_f32"});
  set_attr(*cast, "to", int64_t{onnx::TensorProto::FLOAT});
  add_typed(body->mutable_output(), "c_out", onnx::TensorProto::BOOL);
  add_typed(body->mutable_output(), "acc_out", onnx::TensorProto::FLOAT);
  add_typed(body->mutable_output(), "i_f32", onnx::TensorProto::FLOAT);
  return convert(b);
}

TEST(ControlFlowImport, ALoopWithASmallConstantTripCountIsUnrolled) {
  const Tensor x0 = Tensor::from_vector<float>({2}, {1, 2});
  const Tensor x = Tensor::from_vector<float>({2}, {0.5f, -1});
  Converted small = loop_with_trip_count(3);
  ASSERT_TRUE(small.model);
  EXPECT_EQ(small.count(fb::OpType::Loop), 0);
  EXPECT_EQ(small.counter("unroll_loops", "Loops unrolled"), 1);
  auto out = small.run({x0, x});
  EXPECT_EQ(out[0].to_doubles(), (std::vector<double>{2.5, -1}));
  EXPECT_EQ(out[1].to_doubles(), (std::vector<double>{0, 1, 2}));

  Converted large = loop_with_trip_count(40);
  ASSERT_TRUE(large.model);
  EXPECT_EQ(large.count(fb::OpType::Loop), 1);
  auto kept = large.run({x0, x});
  EXPECT_EQ(kept[0].to_doubles(), (std::vector<double>{21, -38}));
  EXPECT_EQ(kept[1].shape(), (Shape{40}));
}

TEST(ControlFlowImport, ScanOfOpset8NeedsBatchOne) {
  OnnxBuilder b(8);
  b.input("s", DType::F32, {2, 2}).input("xs", DType::F32, {2, 3, 2}).output("s_final");
  onnx::NodeProto& scan = b.node("Scan", {"", "s", "xs"}, {"s_final"}, "old_scan");
  set_attr(scan, "num_scan_inputs", int64_t{1});
  graph_attr(scan, "body");
  Status st = try_convert(b);
  ASSERT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("needs batch 1"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("old_scan"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace mote::convert::test
