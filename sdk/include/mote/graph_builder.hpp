// GraphBuilder writes .mote models from code: tests, converters and
// applications that generate small graphs.
//
//   mote::GraphBuilder b;
//   int x = b.add_input("x", DType::F32, {1, 3, 224, 224});
//   int w = b.add_constant("w", weights);
//   int y = b.add_op(fb::OpType::Conv, {x, w}, conv_attrs)[0];
//   b.mark_output(y, "y");
//   MOTE_RETURN_IF_ERROR(b.save("model.mote"));
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mote/attrs.hpp"
#include "mote/export.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

class MOTE_API GraphBuilder {
 public:
  GraphBuilder();
  ~GraphBuilder();
  GraphBuilder(GraphBuilder&&) noexcept;
  GraphBuilder& operator=(GraphBuilder&&) noexcept;

  // Each returns the new tensor's index.
  int add_input(const std::string& name, DType dtype, Shape shape);
  // Copies the data of `value`.
  int add_constant(const std::string& name, const Tensor& value);

  // Adds an op reading `inputs` (-1 for an omitted optional input) and
  // creating `num_outputs` new tensors, whose indices are returned. Names
  // default to "<op name>:<i>" and the op name to "<type>_<index>".
  std::vector<int> add_op(fb::OpType type, const std::vector<int>& inputs, int num_outputs = 1,
                          const std::string& name = "");
  // Same, with an attribute table (fb::ConvAttrsT, fb::GemmAttrsT, ...).
  template <class Attrs>
  std::vector<int> add_op(fb::OpType type, const std::vector<int>& inputs, Attrs attrs, int num_outputs = 1,
                          const std::string& name = "");

  // The most recently added op, to set fused activations or hints.
  fb::OpT& last_op();

  // Makes `body` (its tensors, ops, constants and own bodies) a subgraph of
  // this graph, for an If, Loop or Scan to name in OpT::subgraphs; returns
  // its index. Operand order: runtime/core/control_flow.hpp.
  uint32_t add_subgraph(GraphBuilder body);

  // Marks a tensor as a graph output, optionally renaming it.
  void mark_output(int tensor, const std::string& name = "");
  void set_metadata(const std::string& key, const std::string& value);
  void set_producer(const std::string& producer);
  // Declared shape/dtype of a tensor (intermediates start with an empty
  // shape; setting them is optional and only informative).
  void set_tensor_info(int tensor, DType dtype, Shape shape);
  // Renames a tensor (copies of a model keep their original tensor names).
  void set_tensor_name(int tensor, const std::string& name);

  int tensor_count() const;
  int op_count() const;

  // The complete file: flatbuffer, then the 64-byte aligned weight segment.
  Result<std::vector<uint8_t>> serialize() const;
  // Writes atomically: a temporary file beside `path`, then rename.
  Status save(const std::string& path) const;

 private:
  fb::OpT& add_op_node(fb::OpType type, const std::vector<int>& inputs, int num_outputs, const std::string& name);
  struct State;
  std::unique_ptr<State> state_;
  std::vector<int> last_outputs_;
};

template <class Attrs>
std::vector<int> GraphBuilder::add_op(fb::OpType type, const std::vector<int>& inputs, Attrs attrs, int num_outputs,
                                      const std::string& name) {
  std::vector<int> outs = add_op(type, inputs, num_outputs, name);
  set_attrs(last_op(), std::move(attrs));
  return outs;
}

}  // namespace mote
