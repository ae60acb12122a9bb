// Optimised QLinearConcat: each input's slab per outer index (the elements
// before the axis) copied as bytes when its scale, zero point and type are
// Y's, else mapped through a 256-entry table (its every code requantised
// to Y's once, in double as the reference): a concatenation stays a copy.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "runtime/core/attrs.hpp"
#include "runtime/core/kernel.hpp"
#include "runtime/core/shape_util.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/ops/qlinear_elementwise.hpp"
#include "runtime/reference/requantize.hpp"

namespace mote::cpu {
namespace {

// Bytes per parallel task.
constexpr int64_t kGrain = 1 << 15;

// What input k's codes become in Y: the table is empty for a plain copy.
struct InputMap {
  const uint8_t* data = nullptr;  // the input's bytes
  int64_t slab = 0;               // elements per outer index
  int64_t y_offset = 0;           // where its slab starts in Y's
  std::vector<uint8_t> table;     // indexed by the code's byte
};

Status qlinear_concat(KernelContext& ctx) {
  auto yq = read_tensor_quant(ctx.inputs, kQConcatY);
  if (!yq.ok()) return ctx.fail(yq.status().message());
  Tensor& y = ctx.out(0);
  auto axis = normalize_axis(attrs<fb::AxisAttrsT>(ctx.op).axis, y.rank());
  if (!axis.ok()) return ctx.fail(axis.status().message());
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < *axis; ++d) outer *= y.dim(d);
  for (int d = *axis + 1; d < y.rank(); ++d) inner *= y.dim(d);
  const int64_t y_slab = y.dim(*axis) * inner;
  const bool y_signed = y.dtype() == DType::I8;
  std::vector<InputMap> maps;
  int64_t start = 0;
  for (size_t k = 0; k < qconcat_count(ctx.inputs.size()); ++k) {
    const QuantOperand operand = qconcat_input(k);
    auto xq = read_tensor_quant(ctx.inputs, operand, qconcat_label(k));
    if (!xq.ok()) return ctx.fail(xq.status().message());
    const Tensor& x = ctx.in(operand.data);
    InputMap m;
    m.data = static_cast<const uint8_t*>(x.raw());
    m.slab = x.dim(*axis) * inner;
    m.y_offset = start;
    start += m.slab;
    if ((x.dtype() == DType::I8) != y_signed || xq->scale != yq->scale || xq->zero != yq->zero) {
      const std::array<uint8_t, 256> table = reference::code_table(x.dtype(), *xq, y.dtype(), *yq);
      m.table.assign(table.begin(), table.end());
    }
    if (m.slab > 0) maps.push_back(std::move(m));
  }
  auto* out = static_cast<uint8_t*>(y.raw());
  // One task per outer index unless the slabs are small.
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, y_slab));
  ctx.pool->parallel_for(outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      for (const InputMap& m : maps) {
        const uint8_t* src = m.data + o * m.slab;
        uint8_t* dst = out + o * y_slab + m.y_offset;
        if (m.table.empty()) {
          std::memcpy(dst, src, static_cast<size_t>(m.slab));
        } else {
          for (int64_t i = 0; i < m.slab; ++i) dst[i] = m.table[src[i]];
        }
      }
    }
  });
  return {};
}

}  // namespace
}  // namespace mote::cpu

MOTE_CPU_KERNEL(QLinearConcat, mote::cpu::qlinear_concat);
