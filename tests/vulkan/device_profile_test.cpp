// The device profile table, MOTE_VK_GEMM_TILE and the GEMM tile and split-K
// choices (pure logic, no device needed), against hand-worked values.
#include "runtime/vulkan/device_profile.hpp"

#include <gtest/gtest.h>

#include <string>

#include "runtime/vulkan/kernels/gemm_split.hpp"
#include "runtime/vulkan/kernels/gemm_tile.hpp"

namespace mote::vk {
namespace {

DeviceInfo device(uint32_t vendor, VkPhysicalDeviceType type) {
  DeviceInfo info;
  info.vendor_id = vendor;
  info.type = type;
  return info;
}

DeviceFeatures desktop_limits() {
  DeviceFeatures f;
  f.max_shared_memory = 49152;
  f.max_workgroup_invocations = 1024;
  f.max_workgroup_size[0] = 1024;
  return f;
}

TEST(DeviceProfile, RowsByVendorAndType) {
  DeviceFeatures f = desktop_limits();
  auto lavapipe = choose_profile(device(0x10005, VK_PHYSICAL_DEVICE_TYPE_CPU), f, nullptr);
  ASSERT_TRUE(lavapipe.ok());
  EXPECT_FALSE(lavapipe->gemm.shared_core);
  EXPECT_EQ(lavapipe->gemm.tm, 32u);
  auto nvidia = choose_profile(device(0x10de, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU), f, nullptr);
  ASSERT_TRUE(nvidia.ok());
  EXPECT_TRUE(nvidia->gemm.shared_core);
  EXPECT_NE(nvidia->row.find("NVIDIA"), std::string::npos);
  // CPU-type drivers fold short reduction rows per invocation; GPUs keep a
  // workgroup per row.
  EXPECT_EQ(lavapipe->reduce_rows_per_invocation, 256u);
  EXPECT_EQ(nvidia->reduce_rows_per_invocation, 0u);
  // A vendor's CPU-type driver is not its GPU: lavapipe's row still wins.
  auto cpu_type = choose_profile(device(0x1002, VK_PHYSICAL_DEVICE_TYPE_CPU), f, nullptr);
  ASSERT_TRUE(cpu_type.ok());
  EXPECT_EQ(cpu_type->row, lavapipe->row);
  // A GPU no row names keeps the register core.
  auto other = choose_profile(device(0x1010, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU), f, nullptr);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->gemm.shared_core);
  EXPECT_EQ(other->row, "generic");
}

// The rows from the vendors' guides, each by vendor and device type: on-chip
// shared memory (AMD, Intel, Adreno) takes the shared core, with fewer
// workgroups on integrated GPUs; Mali, whose local memory is main memory,
// the register core with a smaller tile than lavapipe's.
TEST(DeviceProfile, VendorGuideRows) {
  const DeviceFeatures f = desktop_limits();
  struct Case {
    uint32_t vendor;
    VkPhysicalDeviceType type;
    const char* row;  // a word of the row's name
    bool shared_core;
    uint32_t min_workgroups;  // for the shared core
  };
  const Case cases[] = {
      {0x1002, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, "AMD GPU", true, 512},
      {0x1002, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, "AMD integrated", true, 128},
      {0x8086, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, "Intel GPU", true, 512},
      {0x8086, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, "Intel integrated", true, 128},
      {0x5143, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, "Adreno", true, 128},
      {0x13b5, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, "Mali", false, 0},
  };
  for (const Case& c : cases) {
    auto p = choose_profile(device(c.vendor, c.type), f, nullptr);
    ASSERT_TRUE(p.ok()) << c.row;
    EXPECT_NE(p->row.find(c.row), std::string::npos) << c.row << ": got " << p->row;
    EXPECT_NE(p->row.find("unmeasured"), std::string::npos) << p->row;
    EXPECT_EQ(p->gemm.shared_core, c.shared_core) << c.row;
    if (c.shared_core) EXPECT_EQ(p->gemm.min_workgroups, c.min_workgroups) << c.row;
  }
  // Mali's tile, which CTest's vulkan_gemm_mali_tile runs on lavapipe by
  // this string: passing it back through MOTE_VK_GEMM_TILE applies the
  // shader's checks, here on a small mobile GPU's limits.
  DeviceFeatures mobile;
  mobile.max_shared_memory = 16384;
  mobile.max_workgroup_invocations = 256;
  mobile.max_workgroup_size[0] = 256;
  auto mali = choose_profile(device(0x13b5, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU), mobile, nullptr);
  ASSERT_TRUE(mali.ok());
  const std::string tile = format_gemm_tile(mali->gemm);
  EXPECT_EQ(tile, "64x8x4x16");
  auto checked = choose_profile(device(0x13b5, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU), mobile, tile.c_str());
  EXPECT_TRUE(checked.ok()) << checked.status().message();
}

TEST(DeviceProfile, OverrideParsesAndChecks) {
  DeviceFeatures f = desktop_limits();
  DeviceInfo cpu = device(0x10005, VK_PHYSICAL_DEVICE_TYPE_CPU);
  auto reg = choose_profile(cpu, f, "128x16x4x16");
  ASSERT_TRUE(reg.ok()) << reg.status().message();
  EXPECT_EQ(reg->gemm.lx, 128u);
  EXPECT_EQ(reg->gemm.tm, 16u);
  EXPECT_EQ(reg->gemm.bk, 16u);
  EXPECT_NE(reg->row.find("MOTE_VK_GEMM_TILE=128x16x4x16"), std::string::npos);
  auto shared = choose_profile(cpu, f, "shared:300");
  ASSERT_TRUE(shared.ok());
  EXPECT_TRUE(shared->gemm.shared_core);
  EXPECT_EQ(shared->gemm.min_workgroups, 300u);
  // Plain "shared" on a device whose row has the register core: the NVIDIA row's 512 workgroups.
  auto plain = choose_profile(cpu, f, "shared");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->gemm.shared_core);
  EXPECT_EQ(plain->gemm.min_workgroups, 512u);
  for (const char* bad : {"64x30x4x32", "64x32x9x32", "2048x32x4x32", "64x32x4", "64x32x4x32x1", "-1x32x4x32",
                          " 64x32x4x32", "64x32x4x32 ", "shared:0", "shared:x", "shared:-1", "shared: 5", "fast"}) {
    auto r = choose_profile(cpu, f, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("MOTE_VK_GEMM_TILE"), std::string::npos) << r.status().message();
  }
  f.max_shared_memory = 4096;  // bk 32 x tm 32 x 4 bytes fit, bk 64 does not
  EXPECT_FALSE(choose_profile(cpu, f, "64x32x4x64").ok());
  // A row's depth step shrinks to fit a small device.
  auto small = choose_profile(cpu, f, nullptr);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->gemm.bk, 32u);
  f.max_shared_memory = 2048;
  EXPECT_EQ(choose_profile(cpu, f, nullptr)->gemm.bk, 16u);
}

TEST(GemmTiles, SharedCoreFillsTheGpu) {
  DeviceFeatures f = desktop_limits();
  f.gemm_tile.shared_core = true;
  f.gemm_tile.min_workgroups = 128;
  // 1024 x 1024: 16 x 16 tiles of 64 are enough.
  auto big = pick_gemm_tile(1024, 1024, 1, f.gemm_tile, f);
  ASSERT_TRUE(big && big->shared_core);
  EXPECT_EQ(big->rows(), 64u);
  EXPECT_EQ(big->columns(), 64u);
  EXPECT_EQ(big->lx % big->columns(), 0u);
  // 512 channels x 49 pixels: 64-tiles give 8 workgroups, 32-tiles 32: the smallest.
  auto small = pick_gemm_tile(512, 49, 1, f.gemm_tile, f);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->rows(), 32u);
  auto [gx, gy] = small->groups(512, 49);
  EXPECT_EQ(gx, 2);
  EXPECT_EQ(gy, 16);
  // ... and split-K: 4608 deep, 128 / 32 = 4 parts of 1152 (a multiple of bk 16).
  SplitK split = plan_split_k(*small, gx * gy, 512, 49, 4608, f.gemm_tile, f);
  EXPECT_EQ(split.parts, 4u);
  EXPECT_EQ(split.k_chunk, 1152u);
  // Parts keep at least 256 values of k: 600 deep allows 2 (300 each, rounded up to 304).
  split = plan_split_k(*small, gx * gy, 512, 49, 600, f.gemm_tile, f);
  EXPECT_EQ(split.parts, 2u);
  EXPECT_EQ(split.k_chunk, 304u);
  EXPECT_EQ(plan_split_k(*small, gx * gy, 512, 49, 500, f.gemm_tile, f).parts, 1u);
  // Enough workgroups, or the register core: no split.
  EXPECT_EQ(plan_split_k(*big, 256, 1024, 1024, 4096, f.gemm_tile, f).parts, 1u);
  f.gemm_tile.shared_core = false;
  auto reg = pick_gemm_tile(512, 49, 1, f.gemm_tile, f);
  ASSERT_TRUE(reg && !reg->shared_core);
  EXPECT_EQ(plan_split_k(*reg, 1, 512, 49, 4608, f.gemm_tile, f).parts, 1u);
}

// Rows by shuffle need tm / 4 invocations in every subgroup of the
// workgroup, the last one included; column quads need whole quads per
// invocation.
TEST(GemmTiles, ShuffleOnlyWhereEverySubgroupHasTheReaders) {
  DeviceFeatures f = desktop_limits();
  f.gemm_rows_by_shuffle = true;
  f.subgroup_size = 8;
  f.gemm_tile = {false, 64, 32, 4, 32};
  auto t = pick_gemm_tile(256, 4096, 1, f.gemm_tile, f);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->rows_by_shuffle);  // 8 readers, 8 subgroups of 8
  EXPECT_TRUE(t->takes_column_quads());
  f.gemm_tile.lx = 20;  // subgroups of 8, 8 and 4: the last lacks readers 4..7
  t = pick_gemm_tile(256, 4096, 1, f.gemm_tile, f);
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->rows_by_shuffle);
  f.gemm_tile.tm = 16;  // 4 readers: every subgroup has them
  t = pick_gemm_tile(256, 4096, 1, f.gemm_tile, f);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->rows_by_shuffle);
  f.gemm_tile = {false, 64, 64, 2, 16};  // 16 readers for subgroups of 8; tn 2
  t = pick_gemm_tile(256, 4096, 1, f.gemm_tile, f);
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->rows_by_shuffle);
  EXPECT_FALSE(t->takes_column_quads());
  f.gemm_rows_by_shuffle = false;  // a profile without it
  f.gemm_tile = {false, 64, 32, 4, 32};
  EXPECT_FALSE(pick_gemm_tile(256, 4096, 1, f.gemm_tile, f)->rows_by_shuffle);
}

}  // namespace
}  // namespace mote::vk
