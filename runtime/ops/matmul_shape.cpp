#include "runtime/ops/matmul_shape.hpp"

#include "runtime/core/shape_util.hpp"

namespace mote {

int64_t MatMulShape::batch_count() const {
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  return count;
}

Result<MatMulShape> resolve_matmul(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty()) {
    return invalid_model("MatMul operands must have rank 1 or more, got A " + shape_to_string(a) + " and B " +
                         shape_to_string(b));
  }
  for (int64_t d : a) {
    if (d < 0) return invalid_model("input A has an unknown or negative dimension: " + shape_to_string(a));
  }
  for (int64_t d : b) {
    if (d < 0) return invalid_model("input B has an unknown or negative dimension: " + shape_to_string(b));
  }
  MatMulShape s;
  s.m = a.size() == 1 ? 1 : a[a.size() - 2];
  s.k = a.back();
  int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  s.n = b.size() == 1 ? 1 : b.back();
  if (s.k != kb) {
    return invalid_model("inner dimensions differ: A " + shape_to_string(a) + " has " + std::to_string(s.k) +
                         " columns, B " + shape_to_string(b) + " has " + std::to_string(kb) + " rows");
  }
  if (a.size() > 2) s.a_batch.assign(a.begin(), a.end() - 2);
  if (b.size() > 2) s.b_batch.assign(b.begin(), b.end() - 2);
  auto batch = broadcast_shapes(s.a_batch, s.b_batch);
  if (!batch.ok()) return invalid_model("batch dimensions: " + batch.status().message());
  s.batch = *batch;
  s.output = s.batch;
  if (a.size() > 1) s.output.push_back(s.m);
  if (b.size() > 1) s.output.push_back(s.n);
  if (shape_numel(s.output) < 0 || shape_numel(a) < 0 || shape_numel(b) < 0) {
    return invalid_model("MatMul sizes overflow: A " + shape_to_string(a) + ", B " + shape_to_string(b));
  }
  return s;
}

}  // namespace mote
