#include "runtime/train/train_graph.hpp"

#include <algorithm>

#include "runtime/core/kernel.hpp"
#include "runtime/core/registry.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote {

namespace {
// Folding exists to learn values that decide shapes (Reshape targets, axes),
// which are small; large constant computations are left to the session.
constexpr int64_t kMaxFoldElements = 1 << 16;
}  // namespace

TrainGraph::TrainGraph() = default;
TrainGraph::~TrainGraph() = default;

int TrainGraph::fail(const Status& error) {
  if (status_.ok()) status_ = error;
  return -1;
}

std::string TrainGraph::describe(int tensor) const {
  return "tensor #" + std::to_string(tensor) + " " + dtype_name(dtype(tensor)) + " " + shape_to_string(shape(tensor));
}

int TrainGraph::input(const std::string& name, DType dtype, const Shape& shape) {
  int t = builder_.add_input(name, dtype, shape);
  infos_.resize(static_cast<size_t>(t) + 1);
  infos_[static_cast<size_t>(t)] = {dtype, shape, nullptr};
  return t;
}

int TrainGraph::constant(const std::string& name, const Tensor& value) {
  int t = builder_.add_constant(name, value);
  values_.push_back(std::make_unique<Tensor>(value.clone()));
  infos_.resize(static_cast<size_t>(t) + 1);
  infos_[static_cast<size_t>(t)] = {value.dtype(), value.shape(), values_.back().get()};
  return t;
}

int TrainGraph::scalar(double value) {
  const std::string name = "train_const_" + std::to_string(constants_++);
  if (float_dtype_ == DType::F64) return constant(name, Tensor::from_vector<double>({}, {value}));
  if (float_dtype_ != DType::F32) {
    return fail(unsupported(std::string("training graph: float constants of dtype ") + dtype_name(float_dtype_) +
                            " (f32 or f64 only)"));
  }
  return constant(name, Tensor::from_vector<float>({}, {static_cast<float>(value)}));
}

int TrainGraph::i64s(const std::vector<int64_t>& values) {
  return constant("train_const_" + std::to_string(constants_++),
                  Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values));
}

std::vector<int> TrainGraph::op(fb::OpType type, const std::vector<int>& inputs, int num_outputs, const fb::OpT* like,
                                const std::string& name) {
  std::vector<int> failed(static_cast<size_t>(num_outputs), -1);
  if (!status_.ok()) return failed;
  const OpDef* def = find_op_def(type);
  if (!def) {
    fail(unsupported(std::string("training graph: op type ") + op_type_name(type) + " has no definition"));
    return failed;
  }
  std::vector<int> outs = builder_.add_op(type, inputs, num_outputs, name);
  fb::OpT& node = builder_.last_op();
  if (like) {
    node.nn = like->nn;
    node.tensor = like->tensor;
    node.math = like->math;
    if (like->fused) node.fused = std::make_unique<fb::FusedActivationT>(*like->fused);
  }
  ShapeContext ctx{node, {}, {}, {}};
  for (int in : inputs) {
    ctx.present.push_back(in >= 0);
    ctx.inputs.push_back(in >= 0 ? info(in) : TensorInfo{});
  }
  Status st = def->infer(ctx);
  if (!st.ok()) {
    std::string operands;
    for (int in : inputs) operands += (operands.empty() ? "" : ", ") + (in >= 0 ? describe(in) : std::string("-"));
    fail(Status(st.code(), std::string(op_type_name(type)) + " '" + node.name + "' on (" + operands +
                               "): " + st.message()));
    return failed;
  }
  infos_.resize(static_cast<size_t>(builder_.tensor_count()));
  for (int i = 0; i < num_outputs; ++i) {
    const TensorInfo& o = ctx.outputs[static_cast<size_t>(i)];
    infos_[static_cast<size_t>(outs[static_cast<size_t>(i)])] = {o.dtype, o.shape, nullptr};
    builder_.set_tensor_info(outs[static_cast<size_t>(i)], o.dtype, o.shape);
  }
  ops_.push_back(&node);
  fold(node);
  return outs;
}

void TrainGraph::fold(const fb::OpT& node) {
  const CpuKernel* kernel = find_reference_kernel(node.type);
  if (!kernel || !kernel->run) return;
  // Shape and Size read only their input's shape, known for every tensor here.
  const bool shape_only = node.type == fb::OpType::Shape || node.type == fb::OpType::Size;
  std::vector<Tensor> shape_views;
  shape_views.reserve(node.inputs.size());
  std::vector<const Tensor*> ins;
  for (int in : node.inputs) {
    if (in < 0) {
      ins.push_back(nullptr);
    } else if (value(in)) {
      ins.push_back(value(in));
    } else if (shape_only) {
      shape_views.push_back(Tensor::borrow(dtype(in), shape(in), static_cast<const void*>(nullptr)));
      ins.push_back(&shape_views.back());
    } else {
      return;
    }
  }
  std::vector<std::unique_ptr<Tensor>> outs;
  std::vector<Tensor*> out_ptrs;
  for (int o : node.outputs) {
    if (shape_numel(shape(o)) > kMaxFoldElements) return;
    outs.push_back(std::make_unique<Tensor>(Tensor::zeros(dtype(o), shape(o))));
    out_ptrs.push_back(outs.back().get());
  }
  static ThreadPool pool(1);
  KernelContext kctx{node, ins, out_ptrs, &pool, nullptr};
  if (!kernel->run(kctx).ok()) return;  // not folding only loses a value; the session computes it
  for (size_t i = 0; i < outs.size(); ++i) {
    infos_[static_cast<size_t>(node.outputs[i])].value = outs[i].get();
    values_.push_back(std::move(outs[i]));
  }
}

int TrainGraph::reshape(int a, const Shape& target) {
  if (a < 0) return -1;
  if (shape(a) == target) return a;
  return op1(fb::OpType::Reshape, {a, i64s(target)});
}

int TrainGraph::transpose(int a, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return a;
  fb::TransposeAttrsT attrs;
  attrs.perm = perm;
  return op1(fb::OpType::Transpose, {a}, attrs);
}

int TrainGraph::transpose_last2(int a) {
  if (a < 0) return -1;
  std::vector<int64_t> perm(static_cast<size_t>(rank(a)));
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(a, perm);
}

int TrainGraph::reduce_sum(int a, const std::vector<int64_t>& axes, bool keepdims) {
  if (a < 0) return -1;
  if (axes.empty()) return a;
  fb::ReduceAttrsT attrs;
  attrs.keepdims = keepdims;
  return op1(fb::OpType::ReduceSum, {a, i64s(axes)}, attrs);
}

int TrainGraph::expand(int a, const Shape& target) {
  if (a < 0) return -1;
  if (shape(a) == target) return a;
  return op1(fb::OpType::Expand, {a, i64s(target)});
}

int TrainGraph::sum_to(int grad, const Shape& target) {
  if (grad < 0) return -1;
  const Shape from = shape(grad);
  if (from == target) return grad;
  const size_t lead = from.size() - std::min(from.size(), target.size());
  std::vector<int64_t> axes;
  for (size_t i = 0; i < from.size(); ++i) {
    if (i < lead || (target[i - lead] == 1 && from[i] != 1)) axes.push_back(static_cast<int64_t>(i));
  }
  return reshape(reduce_sum(grad, axes, /*keepdims=*/true), target);
}

}  // namespace mote
