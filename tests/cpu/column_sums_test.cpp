// simd::column_sums (the pixel sums of channel-blocked pooling) against
// sums in double, over tails of columns and rows, and its accuracy on long
// columns, where one running float sum per column drifts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/cpu/row_simd.hpp"

namespace mote::cpu {
namespace {

TEST(ColumnSums, MatchDoubleSums) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t rows : {1, 3, 5, 4097, 9000}) {
    for (int64_t width : {1, 3, 8, 16, 20, 35}) {
      std::vector<float> x(static_cast<size_t>(rows * width));
      for (float& v : x) v = dist(rng);
      std::vector<float> out(static_cast<size_t>(width), -1.0f);
      simd::column_sums(x.data(), rows, width, out.data());
      for (int64_t j = 0; j < width; ++j) {
        double sum = 0.0, magnitude = 0.0;
        for (int64_t i = 0; i < rows; ++i) {
          sum += x[static_cast<size_t>(i * width + j)];
          magnitude += std::fabs(x[static_cast<size_t>(i * width + j)]);
        }
        EXPECT_NEAR(out[static_cast<size_t>(j)], sum, 1e-6 * magnitude + 1e-6)
            << "rows " << rows << " width " << width << " column " << j;
      }
    }
  }
}

// 12,544 terms of 0.1 (a 112x112 plane): a running float sum ends about
// 1e-4 off; the double sums round once.
TEST(ColumnSums, LongColumnsStayAccurate) {
  const int64_t rows = 112 * 112, width = 16;
  std::vector<float> x(static_cast<size_t>(rows * width), 0.1f);
  std::vector<float> out(static_cast<size_t>(width));
  simd::column_sums(x.data(), rows, width, out.data());
  const double exact = static_cast<double>(0.1f) * static_cast<double>(rows);
  float running = 0.0f;
  for (int64_t i = 0; i < rows; ++i) running += 0.1f;
  EXPECT_GT(std::fabs(running - exact) / exact, 1e-5);  // what the test guards against
  for (float v : out) EXPECT_EQ(v, static_cast<float>(exact));
}

}  // namespace
}  // namespace mote::cpu
