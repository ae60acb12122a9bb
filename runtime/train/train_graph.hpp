// TrainGraph: a GraphBuilder that knows the dtype and shape of every tensor it
// holds, and the value of those known before run time (constants and what
// folds from them). Training graphs are built for one set of input shapes, so
// gradient builders can decide at build time which axes to sum when undoing
// broadcasting, what to reshape back to, and so on.
//
// Errors are sticky: an op that fails shape inference records the first error
// (naming the op and its inputs) and returns -1; later ops fed -1 return -1
// too. Gradient builders therefore read as straight-line formulas, and the
// caller checks status() once at the end.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mote/graph_builder.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "runtime/core/op_def.hpp"

namespace mote {

class TrainGraph {
 public:
  TrainGraph();
  ~TrainGraph();
  TrainGraph(const TrainGraph&) = delete;
  TrainGraph& operator=(const TrainGraph&) = delete;

  GraphBuilder& builder() { return builder_; }
  const Status& status() const { return status_; }
  // Records `error` unless an earlier one is recorded; returns -1.
  int fail(const Status& error);

  int input(const std::string& name, DType dtype, const Shape& shape);
  int constant(const std::string& name, const Tensor& value);
  // The dtype of the float constants gradient builders add (scalar(), and
  // the Casts of one-hot masks): f32 for training, f64 for the gradient
  // checks, which build the same graphs in f64 to run them on the reference
  // backend (tests/train/grad_check.hpp).
  DType float_dtype() const { return float_dtype_; }
  void set_float_dtype(DType dtype) { float_dtype_ = dtype; }

  // A float_dtype() scalar (shape {}), an i64 1-D vector. The value is given
  // in double so that f64 graphs get constants like 1/3 unrounded.
  int scalar(double value);
  int i64s(const std::vector<int64_t>& values);

  // Adds an op (attributes, fused activation and name copied from `like`
  // when given), infers its outputs' shapes and folds it when its inputs are
  // all known. Returns the output tensors, or {-1...} after an error.
  std::vector<int> op(fb::OpType type, const std::vector<int>& inputs, int num_outputs = 1,
                      const fb::OpT* like = nullptr, const std::string& name = "");
  template <class Attrs>
  int op1(fb::OpType type, const std::vector<int>& inputs, Attrs attrs) {
    fb::OpT tmp;
    set_attrs(tmp, std::move(attrs));
    return op(type, inputs, 1, &tmp)[0];
  }
  int op1(fb::OpType type, const std::vector<int>& inputs) { return op(type, inputs)[0]; }

  // Every op added so far, in order (pointers stay valid).
  const std::vector<fb::OpT*>& ops() const { return ops_; }

  // Valid until the next tensor is added (the table grows).
  const TensorInfo& info(int tensor) const { return infos_[static_cast<size_t>(tensor)]; }
  // A copy: builders keep shapes across the ops they add.
  Shape shape(int tensor) const { return info(tensor).shape; }
  DType dtype(int tensor) const { return info(tensor).dtype; }
  int rank(int tensor) const { return static_cast<int>(shape(tensor).size()); }
  // The tensor's value when known before run time, else nullptr.
  const Tensor* value(int tensor) const { return info(tensor).value; }

  // Shorthands for the ops gradient formulas use.
  int add(int a, int b) { return op1(fb::OpType::Add, {a, b}); }
  int sub(int a, int b) { return op1(fb::OpType::Sub, {a, b}); }
  int mul(int a, int b) { return op1(fb::OpType::Mul, {a, b}); }
  int div(int a, int b) { return op1(fb::OpType::Div, {a, b}); }
  int neg(int a) { return op1(fb::OpType::Neg, {a}); }
  int scale(int a, double s) { return s == 1.0 ? a : mul(a, scalar(s)); }
  int reshape(int a, const Shape& shape);
  int transpose(int a, const std::vector<int64_t>& perm);
  // Swaps the last two axes.
  int transpose_last2(int a);
  int reduce_sum(int a, const std::vector<int64_t>& axes, bool keepdims);
  int expand(int a, const Shape& shape);
  // Sums `grad` (of a broadcast result) down to `target`, the shape of the
  // operand that was broadcast: the inverse of multidirectional broadcasting.
  int sum_to(int grad, const Shape& target);

 private:
  void fold(const fb::OpT& op);
  std::string describe(int tensor) const;

  GraphBuilder builder_;
  Status status_;
  std::vector<TensorInfo> infos_;
  // Owned values of constants and folded tensors (TensorInfo::value points here).
  std::vector<std::unique_ptr<Tensor>> values_;
  std::vector<fb::OpT*> ops_;
  int constants_ = 0;
  DType float_dtype_ = DType::F32;
};

}  // namespace mote
