#include "runtime/core/shape_util.hpp"

#include <algorithm>

namespace mote {

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return invalid_argument("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                              " cannot be broadcast (dimension " + std::to_string(i) + ": " +
                              std::to_string(da) + " vs " + std::to_string(db) + ")");
    }
  }
  return out;
}

Result<Shape> broadcast_shapes(const std::vector<Shape>& shapes) {
  Shape out;
  for (const Shape& s : shapes) {
    MOTE_ASSIGN_OR_RETURN(out, broadcast_shapes(out, s));
  }
  return out;
}

Result<int> normalize_axis(int64_t axis, int rank) {
  int64_t r = std::max(rank, 0);
  if (axis < -r || axis >= r) {  // a scalar has no axis
    return invalid_argument("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape) {
  std::vector<int64_t> own = contiguous_strides(shape);
  std::vector<int64_t> out(out_shape.size(), 0);
  size_t offset = out_shape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) out[offset + i] = shape[i] == 1 ? 0 : own[i];
  return out;
}

}  // namespace mote
