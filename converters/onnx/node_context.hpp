// What an op mapper sees of one ONNX node, and how it adds Mote ops.
//
// A mapper (converters/onnx/ops_<family>.cpp) reads the node's inputs and
// attributes and emits one or more Mote ops writing the node's outputs:
//
//   Status map_relu(NodeContext& ctx) {
//     ctx.emit(fb::OpType::Relu, {ctx.input(0)}, {ctx.output(0)});
//     return ctx.status();
//   }
//   MOTE_ONNX_OP(Relu, map_relu);
//
// Attribute and input accessors never fail loudly: a wrong attribute type or
// a missing required input records the first error (naming the file, node,
// op type and opset) and returns a default, and the mapper ends with
// `return ctx.status();`. That keeps mappers short and still reports the
// first problem precisely.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "converters/common/graph.hpp"
#include "mote/status.hpp"

namespace onnx {
class NodeProto;
class AttributeProto;
class GraphProto;
}  // namespace onnx

namespace mote::convert {

// Import state of one graph: the model's, or an If/Loop/Scan body's.
struct ImportState {
  Graph graph;
  std::unordered_map<std::string, int> by_name;  // ONNX tensor name -> value
  std::string file;                              // for messages
  std::string model_dir;                         // external data is relative to it
  int opset = 0;                                 // the default domain's version
  // A body's enclosing scope, and the values the body captured from it:
  // captures[k] (a value of `parent`) feeds the body's input after its own.
  ImportState* parent = nullptr;
  std::vector<int> captures;

  // The value named `name` here, or captured from an enclosing scope (a
  // constant is copied in instead); -1 when no scope defines it.
  int resolve(const std::string& name);
};

// A body imported as a subgraph of the graph holding the node.
struct ImportedBody {
  int subgraph = 0;           // index in Graph::subgraphs
  size_t formal_inputs = 0;   // the body's own inputs, before the captures
  std::vector<int> captures;  // values of the enclosing graph, in input order
  std::vector<std::optional<DType>> output_dtypes;
};

// Imports `body` as a subgraph of `parent.graph` (importer.cpp). A formal
// input without a declared type takes `formal_dtypes[i]`.
Result<ImportedBody> import_subgraph(ImportState& parent, const onnx::GraphProto& body,
                                     const std::vector<std::optional<DType>>& formal_dtypes);

class NodeContext {
 public:
  NodeContext(ImportState& state, const onnx::NodeProto& node, std::string name);

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const;
  const std::string& name() const { return name_; }
  int opset() const { return state_.opset; }
  Graph& graph() { return state_.graph; }
  const std::string& model_dir() const { return state_.model_dir; }

  // Inputs. ONNX marks an omitted optional input with an empty name.
  size_t input_count() const;
  bool has_input(size_t i) const;
  // A required input: records an error when it is omitted.
  int input(size_t i);
  // An optional input: -1 when omitted.
  int optional_input(size_t i) const;
  // Value v's type and shape; an empty Value for an omitted input (-1), so
  // a mapper reading it after input() recorded the error does not crash.
  const Value& value(int v) const;
  // Input i's constant contents, or nullptr when omitted or computed.
  const Tensor* constant_input(size_t i) const;
  // Input i read as a constant integer list; records an error naming `what`
  // when it is not a constant i32/i64 tensor.
  std::vector<int64_t> constant_ints(size_t i, const std::string& what);
  std::optional<DType> input_dtype(size_t i) const;
  // Rank when known (a declared or inferred shape).
  std::optional<int> input_rank(size_t i) const;

  // Outputs. An omitted (empty-named) output still gets a value, unnamed.
  size_t output_count() const;
  bool has_output(size_t i) const;
  int output(size_t i);
  std::vector<int> all_outputs();
  // Makes output i a constant holding `data` (Constant, folded rewrites).
  void set_output_constant(size_t i, Tensor data);

  // Attributes. A wrong attribute type records an error and returns the default.
  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t dflt);
  float attr_float(const std::string& name, float dflt);
  std::string attr_string(const std::string& name, const std::string& dflt);
  std::vector<int64_t> attr_ints(const std::string& name);
  std::vector<float> attr_floats(const std::string& name);
  std::vector<std::string> attr_strings(const std::string& name);
  std::optional<Tensor> attr_tensor(const std::string& name);
  // A graph attribute (If's branches, Loop's and Scan's body) imported as a
  // subgraph; records an error and returns nothing when that fails.
  std::optional<ImportedBody> body(const std::string& name, const std::vector<std::optional<DType>>& formal_dtypes);

  // Emits a Mote op named after the node (suffixed when a node needs more
  // than one op).
  fb::OpT& emit(fb::OpType type, std::vector<int> inputs, std::vector<int> outputs);
  template <class Attrs>
  fb::OpT& emit(fb::OpType type, std::vector<int> inputs, std::vector<int> outputs, Attrs a) {
    fb::OpT& op = emit(type, std::move(inputs), std::move(outputs));
    set_attrs(op, std::move(a));
    return op;
  }
  // A new intermediate value named "<node>/<suffix>".
  int temp(const std::string& suffix);
  int constant(Tensor t, const std::string& suffix);
  int constant_i64(const std::vector<int64_t>& values, const std::string& suffix);
  // A one-element tensor of `dtype` (shape [] unless `one_d`).
  int scalar(DType dtype, double value, const std::string& suffix, bool one_d = false);

  // Errors: "<file>: node '<name>' (<op>, opset <n>): <why>".
  Status unsupported(const std::string& why) const;
  Status invalid(const std::string& why) const;
  // Records `s` unless an error is already recorded.
  void fail(Status s);
  const Status& status() const { return status_; }

 private:
  const onnx::AttributeProto* find_attr(const std::string& name) const;
  bool check_attr_type(const onnx::AttributeProto& a, int type, const char* type_name);
  std::string where() const;

  ImportState& state_;
  const onnx::NodeProto& node_;
  std::string name_;
  int helpers_ = 0;
  Status status_;
};

using OnnxMapper = Status (*)(NodeContext& ctx);

}  // namespace mote::convert

// Registers the mapper of ONNX op `OP` (its op_type, a C++ identifier). One
// line per op: converters/generate_onnx_table.py finds registrations by this
// text and builds the lookup table. Write it inside namespace mote::convert,
// after the mapper.
//   MOTE_ONNX_OP(Conv, map_conv);
#define MOTE_ONNX_OP(OP, FN)                                  \
  namespace onnx_registered {                                 \
  extern const ::mote::convert::OnnxMapper onnx_mapper_##OP;  \
  const ::mote::convert::OnnxMapper onnx_mapper_##OP = (FN);  \
  }                                                           \
  static_assert(true, "")
