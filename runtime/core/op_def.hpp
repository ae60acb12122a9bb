// What the runtime knows about an op type independently of any backend: how
// many inputs and outputs it takes, which inputs must be known at prepare
// time, and how to infer output dtypes and shapes.
//
// One definition per op lives in runtime/ops/<family>.cpp, registered with
// MOTE_OP_DEF; the registry (registry.hpp) is generated from those lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

// What shape inference sees of one tensor.
struct TensorInfo {
  DType dtype = DType::F32;
  Shape shape;
  // The tensor's contents when known before run time (weights, folded
  // constants, Shape outputs); nullptr otherwise.
  const Tensor* value = nullptr;
};

struct ShapeContext {
  const fb::OpT& op;
  // One entry per op input; `present[i]` is false for an omitted optional input.
  std::vector<TensorInfo> inputs;
  std::vector<bool> present;
  // Filled by the shape function: one per op output.
  std::vector<TensorInfo> outputs;

  bool has_input(size_t i) const { return i < inputs.size() && present[i]; }
  const Shape& shape(size_t i) const { return inputs[i].shape; }
  DType dtype(size_t i) const { return inputs[i].dtype; }
  int rank(size_t i) const { return static_cast<int>(inputs[i].shape.size()); }
  void set_output(size_t i, DType dtype, Shape shape) {
    if (outputs.size() <= i) outputs.resize(i + 1);
    outputs[i].dtype = dtype;
    outputs[i].shape = std::move(shape);
  }
  // An error naming this op, for shape functions: fail("axis 5 out of range").
  Status fail(const std::string& message) const;
};

using ShapeFn = Status (*)(ShapeContext& ctx);

// max_inputs / max_outputs of ops taking any number (Min, Max, If...).
inline constexpr int kUnboundedInputs = 1 << 30;

struct OpDef {
  fb::OpType type = fb::OpType::Invalid;
  int min_inputs = 1;
  int max_inputs = 1;
  int min_outputs = 1;
  int max_outputs = 1;
  // Bit i set: input i's values decide output shapes (Reshape's shape,
  // Slice's starts...). Shape inference gets them through TensorInfo::value;
  // when they are only known at run time, the session infers this op's
  // shapes during run.
  uint32_t value_inputs = 0;
  ShapeFn infer = nullptr;
};

}  // namespace mote

// Registers the definition of op `OP` (an fb::OpType name). Write it on one
// line per op: cmake/generate_registry.py finds registrations by this text.
//   MOTE_OP_DEF(Relu, {.min_inputs = 1, .max_inputs = 1, .infer = same_as_input0});
#define MOTE_OP_DEF(OP, ...)                                         \
  namespace mote::registered {                                       \
  extern const ::mote::OpDef op_def_##OP;                            \
  const ::mote::OpDef op_def_##OP = [] {                             \
    ::mote::OpDef d __VA_ARGS__;                                     \
    d.type = ::mote::fb::OpType::OP;                                 \
    return d;                                                        \
  }();                                                               \
  }
