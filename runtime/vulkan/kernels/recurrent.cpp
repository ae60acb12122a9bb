// Vulkan kernels of RNN, GRU and LSTM in two dispatches: the input
// projections x W^T of every step and direction as one batched product
// (matmul.comp, W read transposed in place), then recurrent.comp walking the
// sequence, one workgroup per (direction, batch row) with the hidden state
// in shared memory. Forms the CPU runs instead: custom gate functions or
// clip, sequence_lens, peepholes, more than 1024 hidden units.
#include <algorithm>
#include <string>

#include "runtime/ops/recurrent.hpp"
#include "runtime/vulkan/kernels/matmul_dispatch.hpp"
#include "runtime/vulkan/kernels/shape_args.hpp"
#include "runtime/vulkan/vk_kernel.hpp"

namespace mote::vk {
namespace {

// recurrent.comp's MAX_HIDDEN and MAX_PER.
constexpr int64_t kMaxHidden = 1024;
constexpr int64_t kMaxUnitsPerInvocation = 8;

struct RecurrentPush {
  uint32_t seq, batch, hidden, dirs, reverse, batch_first, flags, pad;
};
static_assert(sizeof(RecurrentPush) == 32, "must match recurrent.comp's push block");

enum Flag : uint32_t {
  kBias = 1, kInitialH = 2, kInitialC = 4, kY = 8, kYH = 16, kYC = 32, kLinearBeforeReset = 64, kInputForget = 128,
};

Status plan_recurrent(PlanContext& ctx) {
  // Before the dtype check, which would name sequence_lens' integer dtype instead.
  if (ctx.has_input(4)) return ctx.unsupported("sequence_lens");
  MOTE_RETURN_IF_ERROR(ctx.require_dtypes({DType::F32}));
  const fb::OpType type = ctx.op.type;
  const auto& a = attrs<fb::RecurrentAttrsT>(ctx.op);
  auto geometry = recurrent_geometry(type, a, ctx.in(0).shape(), ctx.in(1).shape(), ctx.in(2).shape());
  if (!geometry.ok()) return ctx.unsupported(geometry.status().message());
  const RecurrentGeometry& g = *geometry;
  if (!uses_default_activations(type, a, g.directions)) return ctx.unsupported("custom gate functions or clip");
  if (type == fb::OpType::LSTM && ctx.has_input(7)) return ctx.unsupported("peepholes");
  if (g.hidden > kMaxHidden) return ctx.unsupported("more than 1024 hidden units");
  if (g.seq == 0 || g.batch == 0 || g.hidden == 0 || g.input == 0) return ctx.unsupported("empty tensor");
  const uint32_t local = static_cast<uint32_t>(
      std::min<int64_t>({256, ctx.features.max_workgroup_invocations, (g.hidden + 31) / 32 * 32}));
  if (g.hidden > kMaxUnitsPerInvocation * local) return ctx.unsupported("too many hidden units for the workgroup size");
  if (static_cast<uint64_t>(std::max(g.seq, g.hidden)) > ctx.features.max_loop_iterations) {
    return ctx.unsupported("a sequence or hidden size beyond the driver's loop limit");
  }
  const int64_t rows = g.seq * g.batch, gh = g.gates * g.hidden;
  if (!fits_u32(rows * gh * g.directions) || !fits_u32(ctx.in(0).numel()) || !fits_u32(ctx.in(1).numel())) {
    return ctx.unsupported("more than 2^31 elements");
  }
  if (g.directions * g.batch > ctx.features.max_group_count[0]) return ctx.unsupported("batch too large");

  // xw[d] = X W[d]^T: [rows, G*H] per direction, X rows as stored.
  Product pr;
  pr.m = rows, pr.n = gh, pr.k = g.input;
  pr.a_sm = g.input, pr.a_sk = 1;
  pr.b_sk = 1, pr.b_sn = g.input;
  pr.batch_dims = {1, 1, static_cast<uint32_t>(g.directions)};
  pr.b_batch_stride = {0, 0, static_cast<uint32_t>(gh * g.input)};
  pr.batch = g.directions;
  const TensorArg xw = ctx.add_scratch(DType::F32, rows * gh * g.directions);
  pr.y = xw;
  MOTE_RETURN_IF_ERROR(dispatch_matmul(ctx, pr));

  auto has_output = [&](size_t i) { return i < ctx.outputs.size() && ctx.outputs[i] != nullptr; };
  RecurrentPush push{};
  push.seq = static_cast<uint32_t>(g.seq);
  push.batch = static_cast<uint32_t>(g.batch);
  push.hidden = static_cast<uint32_t>(g.hidden);
  push.dirs = static_cast<uint32_t>(g.directions);
  push.reverse = a.direction == fb::RnnDirection::Reverse ? 1u : 0u;
  push.batch_first = g.batch_first ? 1u : 0u;
  const bool lstm = type == fb::OpType::LSTM;
  push.flags = (ctx.has_input(3) ? kBias : 0u) | (ctx.has_input(5) ? kInitialH : 0u) |
               (lstm && ctx.has_input(6) ? kInitialC : 0u) | (has_output(0) ? kY : 0u) | (has_output(1) ? kYH : 0u) |
               (lstm && has_output(2) ? kYC : 0u) | (a.linear_before_reset ? kLinearBeforeReset : 0u) |
               (a.input_forget ? kInputForget : 0u);
  // Absent inputs alias xw (never read); absent outputs get a one-element
  // scratch (never written).
  auto output_or = [&](size_t i) {
    return has_output(i) ? ctx.output(static_cast<int>(i)) : ctx.add_scratch(DType::F32, 1);
  };
  const TensorArg y = output_or(0), y_h = output_or(1), y_c = output_or(2);
  const int32_t cell = lstm ? 2 : type == fb::OpType::GRU ? 1 : 0;
  ctx.dispatch(
         ShaderId::kRecurrent,
         {xw, ctx.input(2), ctx.input_or(3, xw), ctx.input_or(5, xw), lstm ? ctx.input_or(6, xw) : xw, y, y_h, y_c},
         push, {static_cast<uint32_t>(g.directions * g.batch), 1, 1}, {local, 1, 1})
      .constants = {cell};
  return {};
}

}  // namespace
}  // namespace mote::vk

MOTE_VK_KERNEL(RNN, mote::vk::plan_recurrent);
MOTE_VK_KERNEL(GRU, mote::vk::plan_recurrent);
MOTE_VK_KERNEL(LSTM, mote::vk::plan_recurrent);
