// What a TFLite op mapper sees of one operator, and how it adds Mote ops.
//
// Layout. TFLite tensors are NHWC; Mote's convolutions, pooling and resizing
// are NCHW. Rather than a transpose around every op, each TFLite tensor may
// be held in the Mote graph in either order (or both): a mapper asks for an
// input in the order it needs (input(i, Layout::kNchw)) and says in which
// order it writes each output. A Transpose is emitted only where a tensor is
// read in an order it was not written in, once per tensor; a constant is
// permuted at conversion time instead. So a chain of convolutions, pooling
// and elementwise ops stays NCHW from the first Conv to the last, and the
// graph's inputs and outputs keep TFLite's own shapes.
//
// Quantised tensors. input() dequantises an int8/uint8/int16 tensor (a
// DequantizeLinear op, folded away for constants) and output() hands the
// mapper a float value that is quantised into the tensor afterwards, so every
// mapper also serves quantised models, in float between the tensors' own
// scales. raw_input()/raw_output() give the stored values to the mappers
// whose operator is defined on them (CAST, GATHER's indices); QUANTIZE and
// DEQUANTIZE need neither, being an Identity between input() and output().
//
// Like the ONNX front end's NodeContext, accessors record the first error
// (naming the file, operator index, its type and its first output) and return
// a placeholder, and a mapper ends with `return ctx.status();`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "converters/common/graph.hpp"
#include "converters/tflite/tflite_generated.h"
#include "mote/attrs.hpp"
#include "mote/status.hpp"

namespace mote::convert {

enum class Layout { kNhwc, kNchw };

// TFLite axis `axis` of a 4-D NHWC tensor as an NCHW axis.
int64_t nchw_axis(int64_t axis);

// Import state of the model's main subgraph.
struct TfliteImportState {
  Graph graph;
  const tfl::Model* model = nullptr;
  const tfl::SubGraph* subgraph = nullptr;
  const uint8_t* file_data = nullptr;  // the whole file (large buffers live past the FlatBuffer)
  size_t file_size = 0;
  std::string file;  // for messages
  // (tensor index, layout, dequantised) -> the Mote value holding it so.
  std::map<std::tuple<int, Layout, bool>, int> held;
  // (constant tensor index, permutation) -> its permuted value (behind a
  // DequantizeLinear where quantised): one copy however many ops read it.
  std::map<std::pair<int, std::vector<int64_t>>, int> permuted;
  std::vector<bool> is_graph_output;

  const tfl::Tensor& tensor(int index) const { return *subgraph->tensors()->Get(static_cast<uint32_t>(index)); }
  std::string tensor_name(int index) const;
  // The Mote value of `tensor` in `layout`, dequantised when `as_float` and
  // the tensor is quantised; Transposes, DequantizeLinear ops and constants
  // are added as needed. -1 with `error` set when the tensor has no value yet.
  int value_of(int tensor, Layout layout, bool as_float, const std::string& op_name, std::string& error);
};

class TfliteOpContext {
 public:
  TfliteOpContext(TfliteImportState& state, const tfl::Operator& op, int index, std::string op_type);

  // Inputs. `i` counts the operator's input slots; an omitted optional input
  // is -1 in the file.
  int input_count() const;
  bool has_input(int i) const;
  // Input i's dtype (F32 when the slot is empty).
  DType input_dtype(int i) const;
  // The TFLite (NHWC) shape of input i.
  Shape input_shape(int i) const;
  int input_rank(int i) const { return static_cast<int>(input_shape(i).size()); }
  bool input_is_constant(int i) const;
  // True when input i is quantised (int8/uint8/int16 with a scale).
  bool input_is_quantized(int i) const;
  // Whether input i is already held in NCHW (and not in NHWC): elementwise
  // mappers follow their inputs' order.
  bool input_held_nchw(int i) const;
  // Input i's value in `layout` (NCHW only for 4-D tensors), as float where
  // it is quantised.
  int input(int i, Layout layout = Layout::kNhwc);
  // The stored values, not dequantised.
  int raw_input(int i, Layout layout = Layout::kNhwc);
  // Input i permuted by `perm` (a constant is permuted here, anything else
  // through a Transpose), as float where it is quantised.
  int permuted_input(int i, const std::vector<int64_t>& perm);
  // A constant integer input's values (Reshape shapes, axes, paddings);
  // nullopt when the input is not constant or not integral.
  std::optional<std::vector<int64_t>> constant_ints(int i) const;

  const Value& value(int v) const { return state_.graph.values[static_cast<size_t>(v)]; }

  // Outputs: the value the mapper writes output i to, in `layout`.
  int output(int i, Layout layout = Layout::kNhwc);
  int raw_output(int i, Layout layout = Layout::kNhwc);
  int output_count() const;
  Shape output_shape(int i) const;
  DType output_dtype(int i) const;
  // The value an op with a fused activation writes: output(i, layout)
  // itself when `act` is NONE, else a temporary that the activation (added
  // after the mapper, where the converter's fusion pass picks it up) reads.
  int output_before(tfl::ActivationFunctionType act, int i, Layout layout = Layout::kNhwc);

  // Emits a Mote op named after the operator's first output (helpers get
  // "/N" suffixes).
  fb::OpT& emit(fb::OpType type, std::vector<int> inputs, std::vector<int> outputs);
  template <class Attrs>
  fb::OpT& emit(fb::OpType type, std::vector<int> inputs, std::vector<int> outputs, Attrs a) {
    fb::OpT& op = emit(type, std::move(inputs), std::move(outputs));
    set_attrs(op, std::move(a));
    return op;
  }
  int temp(const std::string& suffix);
  int constant(Tensor t, const std::string& suffix);
  int constant_i64(const std::vector<int64_t>& values, const std::string& suffix);
  int scalar_f32(float value, const std::string& suffix);

  // The operator's options table of type T, or nullptr (an error is recorded
  // when `required`).
  template <class T>
  const T* options(bool required = true) {
    const T* o = op_.builtin_options_as<T>();
    if (!o && required) fail(invalid("its options table is missing or of the wrong type"));
    return o;
  }

  // Errors: "<file>: operator <n> (<TYPE>, output '<name>'): <why>".
  Status unsupported(const std::string& why) const;
  Status invalid(const std::string& why) const;
  void fail(Status s);
  const Status& status() const { return status_; }

  // Adds the fused activations and output quantisations the mapper left
  // pending; the importer calls it after the mapper.
  void finish();

 private:
  int tensor_index(int i, bool output) const;
  int output_value(int i, Layout layout, bool as_float);
  std::string where() const;

  TfliteImportState& state_;
  const tfl::Operator& op_;
  int index_;
  std::string op_type_;
  std::string name_;
  int helpers_ = 0;
  // Values the operator's main op writes (its outputs, or what their
  // activations read): the op writing one takes the operator's name.
  std::vector<int> main_outputs_;
  Status status_;
  struct Pending {
    tfl::ActivationFunctionType act;
    int from, to;
  };
  std::vector<Pending> activations_;
  struct PendingQuantize {
    int tensor, from, to;
    Layout layout;
  };
  std::vector<PendingQuantize> quantizations_;
};

using TfliteMapper = Status (*)(TfliteOpContext& ctx);

}  // namespace mote::convert

// Registers the mapper of TFLite builtin operator `OP` (its BuiltinOperator
// name). converters/generate_op_table.py builds the lookup table from these
// lines; write one inside namespace mote::convert, after the mapper.
//   MOTE_TFLITE_OP(CONV_2D, map_conv);
#define MOTE_TFLITE_OP(OP, FN)                                    \
  namespace tflite_registered {                                   \
  extern const ::mote::convert::TfliteMapper tflite_mapper_##OP;  \
  const ::mote::convert::TfliteMapper tflite_mapper_##OP = (FN);  \
  }                                                               \
  static_assert(true, "")
