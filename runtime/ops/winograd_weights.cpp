#include "runtime/ops/winograd_weights.hpp"

#include <algorithm>
#include <cassert>

namespace mote {
namespace {

// The weight transforms G (rows of the transform domain, 3 taps each) of
// F(4x4, 3x3) and F(2x2, 3x3); a filter g becomes G g G^T.
constexpr float kG4[6][3] = {{1.0f / 4, 0, 0},
                             {-1.0f / 6, -1.0f / 6, -1.0f / 6},
                             {-1.0f / 6, 1.0f / 6, -1.0f / 6},
                             {1.0f / 24, 1.0f / 12, 1.0f / 6},
                             {1.0f / 24, -1.0f / 12, 1.0f / 6},
                             {0, 0, 1}};
constexpr float kG2[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
// Filters transformed together: their taps are first laid out tap by tap, so
// the transform runs along the filters in vectors and writes each point's
// row of U contiguously (ResNet-18's three 512-channel F(2x2) layers alone
// took 40 ms at prepare one filter at a time).
constexpr int64_t kWeightBlock = 128;

// u[p * filters + f] = (G g_f G^T)[p] for `filters` 3x3 filters g_f, 9 floats
// apart in w; G has `in` rows.
void transform_weights(const float (*G)[3], int in, const float* w, int64_t filters, float* u) {
  float taps[9][kWeightBlock], cols[6][3][kWeightBlock];
  for (int64_t f0 = 0; f0 < filters; f0 += kWeightBlock) {
    const int64_t n = std::min(kWeightBlock, filters - f0);
    for (int64_t f = 0; f < n; ++f) {
      for (int t = 0; t < 9; ++t) taps[t][f] = w[(f0 + f) * 9 + t];
    }
    // Down each filter column j: cols[i][j] = sum_a G[i][a] g[a][j].
    for (int i = 0; i < in; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int64_t f = 0; f < n; ++f) {
          cols[i][j][f] = G[i][0] * taps[j][f] + G[i][1] * taps[3 + j][f] + G[i][2] * taps[6 + j][f];
        }
      }
    }
    // Across each row i: point (i, l) = sum_j G[l][j] cols[i][j].
    for (int i = 0; i < in; ++i) {
      for (int l = 0; l < in; ++l) {
        float* out = u + (i * in + l) * filters + f0;
        for (int64_t f = 0; f < n; ++f) {
          out[f] = G[l][0] * cols[i][0][f] + G[l][1] * cols[i][1][f] + G[l][2] * cols[i][2][f];
        }
      }
    }
  }
}

}  // namespace

void winograd_transform_weights(int tile, const float* w, int64_t filters, float* u) {
  assert(tile == 2 || tile == 4);
  transform_weights(tile == 4 ? kG4 : kG2, tile + 2, w, filters, u);
}

std::vector<float> winograd_transform_weights(int tile, const float* w, int64_t filters) {
  std::vector<float> u(static_cast<size_t>((tile + 2) * (tile + 2) * filters));
  winograd_transform_weights(tile, w, filters, u.data());
  return u;
}

}  // namespace mote
