// GridSample(X [N, C, D1...Dr], grid [N, O1...Or, r]) -> [N, C, O1...Or]:
// X sampled at normalised coordinates, grid's last axis listing them
// innermost dimension first (x along the width). AffineGrid(theta [N, r,
// r + 1], size [N, C, D1...Dr]) -> [N, D1...Dr, r]: the sampling grid of an
// affine transform, size being a value input.
#include <string>

#include "runtime/core/op_def.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {
namespace {

Status infer_grid_sample(ShapeContext& ctx) {
  const Shape& x = ctx.shape(0);
  const Shape& grid = ctx.shape(1);
  if (ctx.dtype(0) != DType::F32 || ctx.dtype(1) != DType::F32) return ctx.fail("X and grid must be f32");
  if (x.size() < 3 || grid.size() != x.size() || grid[0] != x[0] || grid.back() != static_cast<int64_t>(x.size()) - 2) {
    return ctx.fail("grid " + shape_to_string(grid) + " does not fit X " + shape_to_string(x) +
                    " (want [N, spatial..., " + std::to_string(x.size() - 2) + "])");
  }
  Shape out = {x[0], x[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  ctx.set_output(0, DType::F32, std::move(out));
  return {};
}

Status infer_affine_grid(ShapeContext& ctx) {
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> size, known_int_list(ctx, 1, "'size' (input 1)"));
  const Shape& theta = ctx.shape(0);
  const int64_t r = static_cast<int64_t>(size.size()) - 2;
  if ((r != 2 && r != 3) || theta != Shape{size[0], r, r + 1} || ctx.dtype(0) != DType::F32) {
    return ctx.fail("theta " + shape_to_string(theta) + " must be f32 [N, r, r + 1] for size " + shape_to_string(size) +
                    " ([N, C, H, W] or [N, C, D, H, W])");
  }
  Shape out = {size[0]};
  out.insert(out.end(), size.begin() + 2, size.end());
  out.push_back(r);
  ctx.set_output(0, DType::F32, std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(GridSample, {.min_inputs = 2, .max_inputs = 2, .infer = mote::infer_grid_sample});
MOTE_OP_DEF(AffineGrid, {.min_inputs = 2, .max_inputs = 2, .value_inputs = 0b10u, .infer = mote::infer_affine_grid});
