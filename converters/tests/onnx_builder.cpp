#include "converters/tests/onnx_builder.hpp"

#include <cstring>
#include <random>

#include "converters/onnx/tensor_proto.hpp"

namespace mote::convert::test {

OnnxBuilder::OnnxBuilder(int opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("mote converter tests");
  auto* id = model_.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

OnnxBuilder& OnnxBuilder::input(const std::string& name, DType dtype, const Shape& shape) {
  auto* v = model_.mutable_graph()->add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_type_from_dtype(dtype));
  auto* s = tt->mutable_shape();
  for (int64_t d : shape) {
    auto* dim = s->add_dim();
    if (d >= 0) {
      dim->set_dim_value(d);
    } else {
      dim->set_dim_param("N");
    }
  }
  return *this;
}

OnnxBuilder& OnnxBuilder::output(const std::string& name, DType dtype) {
  auto* v = model_.mutable_graph()->add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx_type_from_dtype(dtype));
  return *this;
}

OnnxBuilder& OnnxBuilder::initializer(const std::string& name, const Tensor& value) {
  auto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx_type_from_dtype(value.dtype()));
  for (int64_t d : value.shape()) t->add_dims(d);
  t->set_raw_data(std::string(static_cast<const char*>(value.raw()), value.bytes()));
  return *this;
}

onnx::NodeProto& OnnxBuilder::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs, const std::string& name) {
  auto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op_type);
  n->set_name(name.empty() ? op_type + "_" + std::to_string(model_.graph().node_size()) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return *n;
}

void set_attr(onnx::NodeProto& node, const std::string& name, int64_t value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, float value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

Tensor random_f32(const Shape& shape, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t = Tensor::zeros(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

}  // namespace mote::convert::test
