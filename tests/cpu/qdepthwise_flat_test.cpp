// Which int8 depthwise layers the flat path takes (qdepthwise_quads.hpp:
// QDepthwiseFlat): its tables are made where every vector of 16 outputs
// reads its taps from one 64-byte window of the plane and the tables fit,
// on CPUs that run the integer kernel; the values themselves are tested
// against the reference in tests/ops/qlinear_conv_test.cpp.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/cpu/qdepthwise_quads.hpp"
#include "tests/support/op_attrs.hpp"

namespace mote::test {
namespace {

// The flat tables planned for a depthwise layer of `channels` k x k
// kernels over x, or none.
cpu::QDepthwiseFlat planned(const Shape& x, int64_t k, const fb::ConvAttrsT& attrs) {
  const int64_t channels = x[1];
  auto g = resolve_conv(attrs, x, {channels, 1, k, k});
  EXPECT_TRUE(g.ok()) << g.status().to_string();
  const std::vector<int16_t> taps(static_cast<size_t>(channels * k * k), 1);
  cpu::QDepthwiseQuads w = cpu::qdepthwise_quads_pack(channels, k, k, taps.data());
  cpu::qdepthwise_quads_plan_flat(*g, w);
  return w.flat;
}

TEST(QDepthwiseFlat, PlannedWhereWindowsAndTablesFit) {
  const bool integers = cpu::qdepthwise_quads_available();
  const auto same = conv_attrs({1, 1}, {1, 1, 1, 1}, {}, 4);
  // MobileNetV2's narrow planes: 7x7 (4 vectors) and 14x14 (13).
  const cpu::QDepthwiseFlat seven = planned({1, 4, 7, 7}, 3, same);
  EXPECT_EQ(seven.windows.size(), integers ? 4u : 0u);
  EXPECT_EQ(seven.index.size(), integers ? 4u * 3 * 64 : 0u);
  EXPECT_EQ(planned({1, 4, 14, 14}, 3, same).windows.size(), integers ? 13u : 0u);
  // Outputs a vector wide or wider: the row paths.
  EXPECT_TRUE(planned({1, 4, 16, 16}, 3, same).windows.empty());
  // 120 permutes, past the tables' 64.
  EXPECT_TRUE(planned({1, 4, 12, 15}, 5, conv_attrs({1, 1}, {2, 2, 2, 2}, {}, 4)).windows.empty());
  // Dilation 4: a vector's taps span ten rows of 12 bytes, past one load.
  EXPECT_TRUE(planned({1, 4, 12, 12}, 3, conv_attrs({1, 1}, {4, 4, 4, 4}, {4, 4}, 4)).windows.empty());
}

}  // namespace
}  // namespace mote::test
