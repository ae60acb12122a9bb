// Pad: extends (or crops) each axis, filling with a constant or with the
// data's edge, reflection or wrap-around.
#include "runtime/ops/pad.hpp"

#include <algorithm>

#include "runtime/core/attrs.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/ops/value_inputs.hpp"

namespace mote {

Result<PadAmounts> resolve_pads(const Shape& data, const Tensor& pads_t, const Tensor* axes_t, fb::PadMode mode) {
  if (fb::EnumNamePadMode(mode)[0] == '\0') return invalid_argument("unknown mode " + std::to_string(static_cast<int>(mode)));
  const int rank = static_cast<int>(data.size());
  MOTE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, read_int_list(pads_t, "'pads' (input 1)"));
  std::vector<int64_t> axes;
  if (axes_t) {
    MOTE_ASSIGN_OR_RETURN(axes, read_int_list(*axes_t, "'axes' (input 3)"));
  } else {
    for (int k = 0; k < rank; ++k) axes.push_back(k);
  }
  if (pads.size() != 2 * axes.size()) {
    return invalid_argument("'pads' has " + std::to_string(pads.size()) + " entries, expected 2 x " +
                            std::to_string(axes.size()) + " axes");
  }
  PadAmounts amounts{std::vector<int64_t>(data.size(), 0), std::vector<int64_t>(data.size(), 0)};
  std::vector<bool> seen(data.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    MOTE_ASSIGN_OR_RETURN(int axis, normalize_axis(axes[i], rank));
    if (rank == 0) return invalid_argument("cannot pad a scalar");
    if (seen[static_cast<size_t>(axis)]) return invalid_argument("'axes' repeats axis " + std::to_string(axes[i]));
    seen[static_cast<size_t>(axis)] = true;
    const int64_t begin = pads[i], end = pads[i + axes.size()], dim = data[static_cast<size_t>(axis)];
    // Bounds keep the sums below from overflowing: an output axis this long
    // could never be allocated anyway.
    constexpr int64_t kMaxPad = int64_t{1} << 48;
    if (begin < -kMaxPad || begin > kMaxPad || end < -kMaxPad || end > kMaxPad) return invalid_argument("'pads' are too large");
    const int64_t kept = dim + std::min<int64_t>(begin, 0) + std::min<int64_t>(end, 0);
    if (kept < 0) {
      return invalid_argument("'pads' " + std::to_string(begin) + ", " + std::to_string(end) + " crop more than the " +
                              std::to_string(dim) + " elements of axis " + std::to_string(axis));
    }
    if (kept == 0 && mode != fb::PadMode::Constant && (begin > 0 || end > 0)) {
      return invalid_argument(std::string("mode '") + fb::EnumNamePadMode(mode) + "' has no data to pad axis " +
                              std::to_string(axis) + " from");
    }
    amounts.begin[static_cast<size_t>(axis)] = begin;
    amounts.end[static_cast<size_t>(axis)] = end;
  }
  return amounts;
}

int64_t pad_source_index(fb::PadMode mode, int64_t o, int64_t in_dim, int64_t begin, int64_t end) {
  const int64_t cropped = std::max<int64_t>(-begin, 0);
  const int64_t kept = in_dim - cropped - std::max<int64_t>(-end, 0);
  int64_t q = o - std::max<int64_t>(begin, 0);  // position relative to the kept data
  if (q >= 0 && q < kept) return cropped + q;
  switch (mode) {
    case fb::PadMode::Constant:
      return -1;
    case fb::PadMode::Edge:
      q = std::clamp<int64_t>(q, 0, kept - 1);
      break;
    case fb::PadMode::Reflect: {
      // Mirrored without repeating the edge: period 2 * (kept - 1).
      const int64_t period = 2 * (kept - 1);
      if (period == 0) {
        q = 0;
      } else {
        q = (q % period + period) % period;
        if (q >= kept) q = period - q;
      }
      break;
    }
    case fb::PadMode::Wrap:
      q = (q % kept + kept) % kept;
      break;
  }
  return cropped + q;
}

namespace {

Status infer_pad(ShapeContext& ctx) {
  const fb::PadMode mode = attrs<fb::PadAttrsT>(ctx.op).mode;
  MOTE_ASSIGN_OR_RETURN(const Tensor* pads, known_input_value(ctx, 1, "'pads' (input 1)"));
  if (ctx.has_input(3)) MOTE_RETURN_IF_ERROR(known_input_value(ctx, 3, "'axes' (input 3)").status());
  if (ctx.has_input(2)) {
    if (ctx.dtype(2) != ctx.dtype(0)) {
      return ctx.fail(std::string("'constant_value' is ") + dtype_name(ctx.dtype(2)) + " but the data is " +
                      dtype_name(ctx.dtype(0)));
    }
    if (shape_numel(ctx.shape(2)) > 1) return ctx.fail("'constant_value' must be a scalar");
  }
  auto amounts = resolve_pads(ctx.shape(0), *pads, optional_value(ctx, 3), mode);
  if (!amounts.ok()) return ctx.fail(amounts.status().message());
  Shape out = ctx.shape(0);
  for (size_t k = 0; k < out.size(); ++k) out[k] += amounts->begin[k] + amounts->end[k];
  if (shape_numel(out) < 0) return ctx.fail("output shape " + shape_to_string(out) + " overflows");
  ctx.set_output(0, ctx.dtype(0), std::move(out));
  return {};
}

}  // namespace
}  // namespace mote

MOTE_OP_DEF(Pad, {.min_inputs = 2, .max_inputs = 4, .value_inputs = (1u << 1) | (1u << 3), .infer = mote::infer_pad});
