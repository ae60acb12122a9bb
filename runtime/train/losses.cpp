#include "runtime/train/losses.hpp"

#include <numeric>
#include <string>
#include <vector>

namespace mote {

namespace {

int mean_all(TrainGraph& g, int x) {
  fb::ReduceAttrsT attrs;
  attrs.keepdims = false;
  return g.op1(fb::OpType::ReduceMean, {x}, attrs);
}

}  // namespace

int nll_loss(TrainGraph& g, int log_probs, int target, int weight, fb::LossReduction reduction,
             std::optional<int64_t> ignore_index) {
  if (log_probs < 0 || target < 0) return -1;
  const Shape in_shape = g.shape(log_probs);
  const int64_t classes = in_shape.size() >= 2 ? in_shape[1] : 0;
  // The class index of every element along axis 1, [C, 1, ...]: Equal with
  // the targets [N, 1, d...] makes the one-hot mask [N, C, d...].
  Shape along_classes(in_shape.size() - 1, 1);
  along_classes[0] = classes;
  std::vector<int64_t> range(static_cast<size_t>(classes));
  std::iota(range.begin(), range.end(), int64_t{0});
  const int arange =
      g.dtype(target) == DType::I64
          ? g.reshape(g.i64s(range), along_classes)
          : g.constant("class_range", Tensor::from_vector<int32_t>(along_classes, std::vector<int32_t>(range.begin(), range.end())));
  fb::CastAttrsT to_float;
  to_float.to = g.float_dtype();
  const int column = g.op1(fb::OpType::Unsqueeze, {target, g.i64s({1})});
  const int onehot = g.op1(fb::OpType::Cast, {g.op1(fb::OpType::Equal, {column, arange})}, to_float);
  // input[n, target, d...] and weight[target], [N, d...]; a target equal to
  // ignore_index (in or outside [0, C)) counts for nothing, not even in the mean.
  const int picked = g.reduce_sum(g.mul(log_probs, onehot), {1}, /*keepdims=*/false);
  int w = weight >= 0 ? g.reduce_sum(g.mul(onehot, g.reshape(weight, along_classes)), {1}, false) : -1;
  if (ignore_index) {
    const Tensor value = g.dtype(target) == DType::I64
                             ? Tensor::from_vector<int64_t>({}, {*ignore_index})
                             : Tensor::from_vector<int32_t>({}, {static_cast<int32_t>(*ignore_index)});
    const int ignored = g.op1(fb::OpType::Equal, {target, g.constant("ignore_index", value)});
    const int keep = g.sub(g.scalar(1.0), g.op1(fb::OpType::Cast, {ignored}, to_float));
    w = w >= 0 ? g.mul(w, keep) : keep;
  }
  const int losses = g.neg(w >= 0 ? g.mul(picked, w) : picked);
  fb::ReduceAttrsT all;
  all.keepdims = false;
  switch (reduction) {
    case fb::LossReduction::None: return losses;
    case fb::LossReduction::Sum: return g.op1(fb::OpType::ReduceSum, {losses}, all);
    default:
      // The weighted mean: divided by the summed weights of the counted
      // targets (their count without weights or ignore_index).
      if (w < 0) return mean_all(g, losses);
      return g.div(g.op1(fb::OpType::ReduceSum, {losses}, all), g.op1(fb::OpType::ReduceSum, {w}, all));
  }
}

namespace {

// -mean_n log_softmax(logits)[n, labels[n]]: LogSoftmax, then the same
// negative log-likelihood the NegativeLogLikelihoodLoss op trains as. The
// one-hot is Equal(labels[:, None], arange(C)) cast to the graph's float
// dtype: no gather with a data-dependent index, and every op has a gradient
// or needs none.
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
  fb::AxisAttrsT axis;
  axis.axis = 1;
  const int log_probs = g.op1(fb::OpType::LogSoftmax, {logits}, axis);
  return nll_loss(g, log_probs, labels, -1, fb::LossReduction::Mean, std::nullopt);
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
