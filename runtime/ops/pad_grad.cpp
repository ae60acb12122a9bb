// Pad's gradient (constant mode): the part of dY that came from the data,
// cut out with Slice; where the pads were negative (a crop), zeros are padded
// back for the rows the forward op dropped.
#include <algorithm>

#include "runtime/ops/pad.hpp"
#include "runtime/train/grad_builder.hpp"

namespace mote {
namespace {

Status pad_grad(GradContext& c) {
  TrainGraph& g = c.g;
  const auto mode = attrs<fb::PadAttrsT>(c.op).mode;
  if (mode != fb::PadMode::Constant) return c.fail("only constant padding is supported yet");
  const Shape data = g.shape(c.in(0));
  const Tensor* pads = g.value(c.in(1));
  const Tensor* axes = c.in(3) >= 0 ? g.value(c.in(3)) : nullptr;
  if (!pads || (c.in(3) >= 0 && !axes)) return c.fail("pads and axes must be known when the training graph is built");
  auto amounts = resolve_pads(data, *pads, axes, mode);
  if (!amounts.ok()) return c.fail(amounts.status().message());
  std::vector<int64_t> starts, ends, refill;
  bool crops = false;
  for (size_t i = 0; i < data.size(); ++i) {
    const int64_t b = amounts->begin[i], e = amounts->end[i];
    const int64_t kept = data[i] + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0);
    starts.push_back(std::max<int64_t>(b, 0));
    ends.push_back(std::max<int64_t>(b, 0) + kept);
    refill.push_back(std::max<int64_t>(-b, 0));
    crops = crops || b < 0 || e < 0;
  }
  std::vector<int64_t> all_axes(data.size());
  for (size_t i = 0; i < data.size(); ++i) all_axes[i] = static_cast<int64_t>(i);
  int dx = g.op1(fb::OpType::Slice, {c.dy(), g.i64s(starts), g.i64s(ends), g.i64s(all_axes)});
  if (crops) {
    for (size_t i = 0; i < data.size(); ++i) refill.push_back(std::max<int64_t>(-amounts->end[i], 0));
    dx = g.op1(fb::OpType::Pad, {dx, g.i64s(refill)});
  }
  c.set(0, dx);
  return {};
}

}  // namespace
}  // namespace mote

MOTE_GRAD(Pad, mote::pad_grad);
