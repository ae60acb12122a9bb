// Builds small ONNX models in C++ for the converter's tests, with ONNX's own
// generated protobuf classes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mote/tensor.hpp"
#include "onnx.pb.h"

namespace mote::convert::test {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 13);

  // A graph input; -1 dims are symbolic ("N").
  OnnxBuilder& input(const std::string& name, DType dtype, const Shape& shape);
  OnnxBuilder& output(const std::string& name, DType dtype = DType::F32);
  OnnxBuilder& initializer(const std::string& name, const Tensor& value);

  // Adds a node; attributes are added to the returned proto.
  onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& model() { return model_; }
  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

void set_attr(onnx::NodeProto& node, const std::string& name, int64_t value);
void set_attr(onnx::NodeProto& node, const std::string& name, float value);
void set_attr(onnx::NodeProto& node, const std::string& name, const std::string& value);
void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);

// A tensor of `shape` with values from a fixed pseudo-random sequence in
// [lo, hi).
Tensor random_f32(const Shape& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace mote::convert::test
