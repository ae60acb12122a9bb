#include "runtime/train/losses.hpp"

#include <numeric>

namespace mote {

namespace {

int mean_all(TrainGraph& g, int x) {
  fb::ReduceAttrsT attrs;
  attrs.keepdims = false;
  return g.op1(fb::OpType::ReduceMean, {x}, attrs);
}

// -mean_n sum_c onehot(labels)[n, c] * log_softmax(logits)[n, c]. The one-hot
// is Equal(labels[:, None], arange(C)) cast to the graph's float dtype: no gather with a
// data-dependent index, and every op has a gradient or needs none.
int softmax_cross_entropy(TrainGraph& g, int logits, int labels) {
  if (g.rank(logits) != 2) {
    return g.fail(invalid_argument("softmax cross-entropy: the model output must be logits [N, C], got " +
                                   shape_to_string(g.shape(logits))));
  }
  if (g.dtype(labels) != DType::I64 && g.dtype(labels) != DType::I32) {
    return g.fail(invalid_argument(std::string("softmax cross-entropy: labels must be i64 or i32 class indices, got ") +
                                   dtype_name(g.dtype(labels))));
  }
  if (g.shape(labels) != Shape{g.shape(logits)[0]}) {
    return g.fail(invalid_argument("softmax cross-entropy: labels must have shape [" +
                                   std::to_string(g.shape(logits)[0]) + "], got " + shape_to_string(g.shape(labels))));
  }
  const int64_t classes = g.shape(logits)[1];
  std::vector<int64_t> range(static_cast<size_t>(classes));
  std::iota(range.begin(), range.end(), int64_t{0});
  int arange = g.dtype(labels) == DType::I64
                   ? g.i64s(range)
                   : g.constant("class_range", Tensor::from_vector<int32_t>({classes}, std::vector<int32_t>(range.begin(), range.end())));
  fb::AxisAttrsT axis;
  axis.axis = 1;
  int log_probs = g.op1(fb::OpType::LogSoftmax, {logits}, axis);
  int column = g.op1(fb::OpType::Unsqueeze, {labels, g.i64s({1})});
  fb::CastAttrsT to_float;
  to_float.to = g.float_dtype();
  int onehot = g.op1(fb::OpType::Cast, {g.op1(fb::OpType::Equal, {column, arange})}, to_float);
  int picked = g.reduce_sum(g.mul(log_probs, onehot), {1}, /*keepdims=*/false);
  return mean_all(g, g.neg(picked));
}

int check_same_shape(TrainGraph& g, const char* what, int prediction, int labels) {
  if (g.dtype(labels) != g.float_dtype() || g.shape(labels) != g.shape(prediction)) {
    return g.fail(invalid_argument(std::string(what) + ": labels must be " + dtype_name(g.float_dtype()) + " " +
                                   shape_to_string(g.shape(prediction)) + " like the model output, got " + dtype_name(g.dtype(labels)) + " " +
                                   shape_to_string(g.shape(labels))));
  }
  return 0;
}

int mse(TrainGraph& g, int prediction, int labels) {
  if (check_same_shape(g, "MSE", prediction, labels) < 0) return -1;
  int d = g.sub(prediction, labels);
  return mean_all(g, g.mul(d, d));
}

// Binary cross-entropy on logits x with targets y, in the stable form
// max(x, 0) - x*y + log(1 + exp(-|x|)).
int bce_with_logits(TrainGraph& g, int x, int y) {
  if (check_same_shape(g, "BCE with logits", x, y) < 0) return -1;
  int relu = g.op1(fb::OpType::Relu, {x});
  int soft = g.op1(fb::OpType::Softplus, {g.neg(g.op1(fb::OpType::Abs, {x}))});
  return mean_all(g, g.add(g.sub(relu, g.mul(x, y)), soft));
}

}  // namespace

int build_loss(TrainGraph& g, LossKind kind, int prediction, int labels) {
  if (prediction < 0 || labels < 0) return -1;
  switch (kind) {
    case LossKind::kSoftmaxCrossEntropy: return softmax_cross_entropy(g, prediction, labels);
    case LossKind::kMse: return mse(g, prediction, labels);
    case LossKind::kBceWithLogits: return bce_with_logits(g, prediction, labels);
  }
  return g.fail(invalid_argument("unknown loss kind"));
}

}  // namespace mote
