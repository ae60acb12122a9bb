// Pooling: MaxPool (with its optional Indices output) and AveragePool, windows
// described by PoolAttrs, and GlobalAveragePool / GlobalMaxPool (one window
// per channel).
#include "runtime/ops/pool.hpp"

#include <algorithm>
#include <string>

#include "runtime/core/op_def.hpp"

namespace mote {

namespace {

std::string list_to_string(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

constexpr int64_t kMaxPoolExtent = int64_t{1} << 20;

// An attribute list that may be empty (then `fill` per dim) or must have
// `count` entries of at least `min`.
Result<std::vector<int64_t>> per_dim(const std::vector<int64_t>& given, size_t count, int64_t fill, int64_t min,
                                     const char* name) {
  if (given.empty()) return std::vector<int64_t>(count, fill);
  if (given.size() != count) {
    return invalid_argument(std::string("attribute ") + name + " " + list_to_string(given) + " must have " +
                            std::to_string(count) + " values");
  }
  for (int64_t v : given) {
    if (v < min) {
      return invalid_argument(std::string("attribute ") + name + " " + list_to_string(given) +
                              " must be >= " + std::to_string(min));
    }
  }
  return given;
}

}  // namespace

PoolGeometry PoolGeometry::as_3d() const {
  PoolGeometry g = *this;
  const size_t missing = 3 - in.size();
  auto prepend = [missing](std::vector<int64_t>& v, int64_t value) { v.insert(v.begin(), missing, value); };
  prepend(g.in, 1);
  prepend(g.out, 1);
  prepend(g.kernel, 1);
  prepend(g.stride, 1);
  prepend(g.dilation, 1);
  prepend(g.pad_begin, 0);
  prepend(g.pad_end, 0);
  return g;
}

Result<PoolGeometry> pool_geometry(const fb::PoolAttrsT& a, const Shape& x) {
  const size_t dims = a.kernel_shape.size();
  if (dims == 0) return invalid_argument("attribute kernel_shape is required");
  if (dims > 3) {
    return unsupported("pooling over " + std::to_string(dims) + " spatial dims; Mote supports 1 to 3");
  }
  if (x.size() != dims + 2) {
    return invalid_argument("input X has shape " + shape_to_string(x) + " but kernel_shape " +
                            list_to_string(a.kernel_shape) + " needs rank " + std::to_string(dims + 2) +
                            " (N x C x spatial)");
  }
  PoolGeometry g;
  g.in.assign(x.begin() + 2, x.end());
  MOTE_ASSIGN_OR_RETURN(g.kernel, per_dim(a.kernel_shape, dims, 1, 1, "kernel_shape"));
  MOTE_ASSIGN_OR_RETURN(g.stride, per_dim(a.strides, dims, 1, 1, "strides"));
  MOTE_ASSIGN_OR_RETURN(g.dilation, per_dim(a.dilations, dims, 1, 1, "dilations"));
  std::vector<int64_t> pads;
  MOTE_ASSIGN_OR_RETURN(pads, per_dim(a.pads, 2 * dims, 0, 0, "pads"));
  // A row of scratch spans the padded input and a window: a bound keeps a
  // hostile file's 10^12-wide window from asking for terabytes (found by
  // fuzzing). No real network pools over a million elements per dimension.
  for (size_t i = 0; i < dims; ++i) {
    const int64_t largest = std::max({g.kernel[i], g.dilation[i], g.stride[i], pads[i], pads[i + dims]});
    // Checked first, so the window's extent cannot overflow.
    if (largest > kMaxPoolExtent || (g.kernel[i] - 1) * g.dilation[i] + 1 > kMaxPoolExtent) {
      return invalid_argument("kernel_shape " + list_to_string(g.kernel) + ", strides " + list_to_string(g.stride) +
                              ", dilations " + list_to_string(g.dilation) + " and pads " + list_to_string(pads) +
                              " reach past " + std::to_string(kMaxPoolExtent) + " elements per dimension");
    }
  }
  g.out.resize(dims);
  g.pad_begin.resize(dims);
  g.pad_end.resize(dims);
  for (size_t i = 0; i < dims; ++i) {
    const int64_t extent = (g.kernel[i] - 1) * g.dilation[i] + 1;  // the dilated window's span
    const int64_t in = g.in[i];
    const int64_t s = g.stride[i];
    if (in < 1) return invalid_argument("input X has an empty spatial dim: " + shape_to_string(x));
    switch (a.auto_pad) {
      case fb::AutoPad::SameUpper:
      case fb::AutoPad::SameLower: {
        g.out[i] = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * s + extent - in);
        // SAME_UPPER puts the odd padding element at the end, SAME_LOWER at the start.
        g.pad_begin[i] = a.auto_pad == fb::AutoPad::SameUpper ? total / 2 : total - total / 2;
        g.pad_end[i] = total - g.pad_begin[i];
        break;
      }
      case fb::AutoPad::Valid:
      case fb::AutoPad::NotSet: {
        if (a.auto_pad == fb::AutoPad::NotSet) {
          g.pad_begin[i] = pads[i];
          g.pad_end[i] = pads[i + dims];
          // onnxruntime's rule; it also keeps every window touching the input
          // or its padding when there is no dilation.
          if (g.pad_begin[i] >= g.kernel[i] || g.pad_end[i] >= g.kernel[i]) {
            return invalid_argument("attribute pads " + list_to_string(pads) + " must be smaller than kernel_shape " +
                                    list_to_string(g.kernel));
          }
        }
        const int64_t span = in + g.pad_begin[i] + g.pad_end[i] - extent;
        if (span < 0) {
          return invalid_argument("the window (kernel_shape " + list_to_string(g.kernel) + ", dilations " +
                                  list_to_string(g.dilation) + ") is larger than the padded input " +
                                  shape_to_string(x));
        }
        const bool ceil = a.ceil_mode && a.auto_pad == fb::AutoPad::NotSet;
        g.out[i] = (ceil ? (span + s - 1) / s : span / s) + 1;
        // ceil_mode must not add a window starting in the right padding.
        if (ceil && (g.out[i] - 1) * s >= in + g.pad_begin[i]) --g.out[i];
        break;
      }
    }
  }
  return g;
}

namespace {

Status pool_failure(const ShapeContext& ctx, const Status& s) {
  Status named = ctx.fail(s.message());
  return s.code() == StatusCode::kUnsupported ? unsupported(named.message()) : named;
}

// f32, or f64 on the reference backend (gradient checks).
Status require_float_x(const ShapeContext& ctx) {
  if (ctx.dtype(0) == DType::F32 || ctx.dtype(0) == DType::F64) return {};
  return ctx.fail(std::string("input X must be f32 or f64, got ") + dtype_name(ctx.dtype(0)));
}

// MaxPool also takes uint8 and int8 (ONNX allows them; an int8 graph's
// quantised tensors pool without leaving their type).
Status require_pool_x(const ShapeContext& ctx) {
  const DType t = ctx.dtype(0);
  if (ctx.op.type != fb::OpType::MaxPool || (t != DType::U8 && t != DType::I8)) return require_float_x(ctx);
  return {};
}

Status infer_pool(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_pool_x(ctx));
  auto g = pool_geometry(attrs<fb::PoolAttrsT>(ctx.op), ctx.shape(0));
  if (!g.ok()) return pool_failure(ctx, g.status());
  Shape out = {ctx.shape(0)[0], ctx.shape(0)[1]};
  out.insert(out.end(), g->out.begin(), g->out.end());
  ctx.set_output(0, ctx.dtype(0), out);
  // MaxPool's optional Indices, only when the node has it: computing it
  // costs the kernel its fast path.
  if (ctx.op.type == fb::OpType::MaxPool && ctx.op.outputs.size() > 1) ctx.set_output(1, DType::I64, out);
  return {};
}

Status infer_global_pool(ShapeContext& ctx) {
  MOTE_RETURN_IF_ERROR(require_float_x(ctx));
  if (ctx.rank(0) < 3) {
    return ctx.fail("input X must have rank >= 3 (N x C x spatial), got " + shape_to_string(ctx.shape(0)));
  }
  Shape out = ctx.shape(0);
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  ctx.set_output(0, ctx.dtype(0), out);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(MaxPool, {.min_inputs = 1, .max_inputs = 1, .min_outputs = 1, .max_outputs = 2, .infer = mote::infer_pool});
MOTE_OP_DEF(AveragePool, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_pool});
MOTE_OP_DEF(GlobalAveragePool, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_global_pool});
MOTE_OP_DEF(GlobalMaxPool, {.min_inputs = 1, .max_inputs = 1, .infer = mote::infer_global_pool});
