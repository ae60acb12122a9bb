// The taps of one pooling window, as the reference pools visit them: every
// tap of the kernel, checked against the input and the padding. A tap counts
// as inside when it lands in the input; as padded when it lands in the input
// or its explicit/auto padding (AveragePool's count_include_pad), but not in
// the extra space a ceil_mode window may reach past the padding.
#pragma once

#include <cstdint>

#include "runtime/ops/pool.hpp"

namespace mote::reference {

struct WindowTaps {
  int64_t inside = 0, padded = 0;
};

// Calls tap(index) for each tap of output element `o` (a row-major index
// into g.out) that lands inside the plane, `index` row-major into g.in; `g`
// is three-dimensional (PoolGeometry::as_3d).
template <class Tap>
WindowTaps visit_window(const PoolGeometry& g, int64_t o, Tap&& tap) {
  const int64_t o_at[3] = {o / (g.out[1] * g.out[2]), o / g.out[2] % g.out[1], o % g.out[2]};
  WindowTaps taps;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t k_at[3] = {kd, kh, kw};
        bool is_inside = true, is_padded = true;
        int64_t index = 0;
        for (int d = 0; d < 3; ++d) {
          const int64_t pos = o_at[d] * g.stride[d] - g.pad_begin[d] + k_at[d] * g.dilation[d];
          is_inside = is_inside && pos >= 0 && pos < g.in[d];
          is_padded = is_padded && pos >= -g.pad_begin[d] && pos < g.in[d] + g.pad_end[d];
          index = index * g.in[d] + pos;
        }
        taps.padded += is_padded;
        if (!is_inside) continue;
        ++taps.inside;
        tap(index);
      }
    }
  }
  return taps;
}

}  // namespace mote::reference
