#include "examples/finetune/dataset.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "sdk/tools/common/npy.hpp"

namespace finetune {
namespace {

// Rows picked by `pick(i)` for i in [0, count) of a tensor with rows on axis 0.
template <class Pick>
mote::Tensor rows(const mote::Tensor& t, int64_t count, Pick pick) {
  mote::Shape shape = t.shape();
  const size_t row_bytes = t.bytes() / static_cast<size_t>(shape[0]);
  shape[0] = count;
  mote::Tensor out = mote::Tensor::zeros(t.dtype(), shape);
  auto* dst = static_cast<char*>(out.raw());
  const auto* src = static_cast<const char*>(t.raw());
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * row_bytes, src + static_cast<size_t>(pick(i)) * row_bytes, row_bytes);
  }
  return out;
}

}  // namespace

Dataset Dataset::gather(const std::vector<int64_t>& order, int64_t begin, int64_t end) const {
  auto pick = [&](int64_t i) { return order[static_cast<size_t>(begin + i)]; };
  return {rows(x, end - begin, pick), rows(y, end - begin, pick)};
}

Dataset Dataset::slice(int64_t begin, int64_t end) const {
  auto pick = [&](int64_t i) { return begin + i; };
  return {rows(x, end - begin, pick), rows(y, end - begin, pick)};
}

mote::Status Dataset::reshape_rows(const mote::Shape& row_shape) {
  mote::Shape shape = {x.dim(0)};
  shape.insert(shape.end(), row_shape.begin(), row_shape.end());
  if (mote::shape_numel(shape) != x.numel()) {
    return mote::invalid_argument("cannot view " + mote::shape_to_string(x.shape()) + " as rows of " +
                                  mote::shape_to_string(row_shape));
  }
  mote::Tensor reshaped = mote::Tensor::zeros(x.dtype(), shape);
  std::memcpy(reshaped.raw(), x.raw(), x.bytes());
  x = std::move(reshaped);
  return {};
}

void Dataset::scale(float factor) {
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) p[i] *= factor;
}

mote::Result<Dataset> load_dataset(const std::string& x_file, const std::string& y_file) {
  MOTE_ASSIGN_OR_RETURN(mote::Tensor x, mote::tools::read_npy(x_file));
  MOTE_ASSIGN_OR_RETURN(mote::Tensor y, mote::tools::read_npy(y_file));
  if (x.dtype() != mote::DType::F32 || y.dtype() != mote::DType::I64 || y.shape().size() != 1) {
    return mote::invalid_argument(x_file + ", " + y_file + ": expected f32 samples and i64 labels [N], got " +
                                  mote::dtype_name(x.dtype()) + " and " + mote::dtype_name(y.dtype()) + " " +
                                  mote::shape_to_string(y.shape()));
  }
  if (x.shape().empty() || x.dim(0) != y.dim(0)) {
    return mote::invalid_argument(x_file + " has shape " + mote::shape_to_string(x.shape()) + " but " + y_file +
                                  " holds " + std::to_string(y.dim(0)) + " labels");
  }
  return Dataset{std::move(x), std::move(y)};
}

std::vector<int64_t> shuffled(int64_t n, std::mt19937& rng) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

double accuracy(const mote::Tensor& logits, const mote::Tensor& labels) {
  int64_t correct = 0;
  const int64_t n = logits.dim(0), classes = logits.dim(1);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = logits.data<float>() + i * classes;
    correct += std::max_element(row, row + classes) - row == labels.data<int64_t>()[i];
  }
  return n > 0 ? static_cast<double>(correct) / static_cast<double>(n) : 0.0;
}

}  // namespace finetune
