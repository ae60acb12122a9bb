// GEMM tuning: the tuning file's format (round trip, every kind of bad file
// refused with the line named), sessions taking a tuned tile for exactly the
// shape it was measured on, SessionOptions::gpu_gemm_tile, and the tuner
// writing winners that later sessions use, results still matching the
// reference kernels.
#include "runtime/vulkan/gemm_tuning.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "mote/gpu.hpp"
#include "runtime/core/gpu_tune.hpp"
#include "runtime/vulkan/device_profile.hpp"
#include "tests/support/op_attrs.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/vulkan/vk_test_util.hpp"

namespace mote::test {
namespace {

using fb::OpType;

vk::DeviceInfo sample_device() {
  vk::DeviceInfo info;
  info.name = "Sample GPU";
  info.vendor_id = 0x10005;
  info.device_id = 7;
  info.driver_version = 42;
  return info;
}

vk::DeviceFeatures sample_features() {
  vk::DeviceFeatures f;
  f.max_shared_memory = 32768;
  f.max_workgroup_invocations = 1024;
  f.max_workgroup_size[0] = 1024;
  return f;
}

vk::GemmTileLimits tile(const char* text) {
  auto t = vk::parse_gemm_tile(text, sample_features().gemm_tile, sample_features());
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
  return t.ok() ? t.value() : vk::GemmTileLimits{};
}

TEST(GemmTuningFile, RoundTrips) {
  vk::GemmTuning tuning;
  tuning.entries[{512, 49, 4608, 1}] = {tile("64x64x2x32"), 181.09};
  tuning.entries[{64, 3136, 576, 1}] = {tile("shared:128"), 0.5};
  tuning.entries[{8, 8, 8, 3}] = {tile("8x4x1x1"), 0};
  std::string text = vk::encode_gemm_tuning(tuning, sample_device());
  auto back = vk::decode_gemm_tuning(text, sample_device(), sample_features());
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->entries.size(), 3u);
  for (const auto& [shape, entry] : tuning.entries) {
    ASSERT_TRUE(back->entries.count(shape)) << shape.text();
    EXPECT_EQ(vk::format_gemm_tile(back->entries[shape].tile), vk::format_gemm_tile(entry.tile)) << shape.text();
    EXPECT_NEAR(back->entries[shape].ms, entry.ms, 1e-3);
  }
  EXPECT_EQ(vk::gemm_tuning_file_name(sample_device()), "gemm-tuning-10005-0007.txt");
  const vk::GemmShape shape{512, 49, 4608, 3};
  EXPECT_EQ(vk::GemmShape::parse(shape.text()), shape);
  for (const char* bad : {"512x49x4608", "512x49x4608x1x", "512x49x4608x1 ", "x49x4608x1", ""}) {
    EXPECT_FALSE(vk::GemmShape::parse(bad)) << bad;
  }
  EXPECT_EQ(vk::gemm_tuning_file_name(sample_device(), vk::GemmPrecision::kF16Storage),
            "gemm-tuning-10005-0007-f16.txt");
  EXPECT_EQ(vk::gemm_tuning_file_name(sample_device(), vk::gemm_precision(true, true)),
            "gemm-tuning-10005-0007-f16m.txt");
}

TEST(GemmTuningFile, BadFilesAreRefusedWithTheLineNamed) {
  vk::GemmTuning tuning;
  tuning.entries[{512, 49, 4608, 1}] = {tile("64x64x2x32"), 1};
  const std::string good = vk::encode_gemm_tuning(tuning, sample_device());
  const std::string header = good.substr(0, good.find("\n512"));
  auto expect_refused = [&](const std::string& text, const std::string& reason) {
    auto r = vk::decode_gemm_tuning(text, sample_device(), sample_features());
    ASSERT_FALSE(r.ok()) << "accepted:\n" << text;
    EXPECT_NE(r.status().message().find(reason), std::string::npos) << r.status().message();
  };
  expect_refused("", "line 1");
  expect_refused("mote-gemm-tuning 2\n", "line 1");
  vk::DeviceInfo other = sample_device();
  other.driver_version = 43;
  expect_refused(vk::encode_gemm_tuning(tuning, other), "another device or driver");
  expect_refused(header + "\n512 49 4608 1 64x64x2x32\n", "line 3");          // no ms
  expect_refused(header + "\n512 49 4608 1 64x64x2x32 1 extra\n", "line 3");  // trailing field
  expect_refused(header + "\n\n0 49 4608 1 64x64x2x32 1\n", "line 4");        // empty line skipped, size 0
  expect_refused(header + "\n512 49 -4608 1 64x64x2x32 1\n", "line 3");
  expect_refused(header + "\n512 49 4608 1 64x64x2x32 nan\n", "line 3");
  expect_refused(header + "\n99999999999999999999 49 4608 1 64x64x2x32 1\n", "line 3");
  expect_refused(header + "\n512 49 4608 1 64x30x2x32 1\n", "tm must be");        // tile the shader cannot take
  expect_refused(header + "\n512 49 4608 1 4096x32x2x32 1\n", "workgroup size");  // beyond the device
  // Every truncation of a good file either parses (a shorter file) or is refused; none crashes.
  for (size_t n = 0; n < good.size(); ++n)
    (void)vk::decode_gemm_tuning(good.substr(0, n), sample_device(), sample_features());
}

gpu_tune::ShapeTiming timing(double ms, const std::string& launched, std::set<int> ops = {3}, bool shares = false) {
  return {ms, launched, std::move(ops), shares};
}

TEST(GemmTuner, ChoosesTheFastestCandidateThatRanAnotherKernelOnTheSameOps) {
  gpu_tune::Timings base = {{"a", timing(10.0, "64x32x4x32")},
                            {"b", timing(10.0, "64x32x4x32")},
                            {"c", timing(10.0, "64x32x4x32", {1, 2})},
                            {"d", timing(10.0, "64x32x4x32", {5}, /*shares=*/true)}};
  std::vector<gpu_tune::Candidate> candidates = {
      {"t1",
       {{"a", timing(8.0, "t1")}, {"b", timing(9.9, "t1")}, {"c", timing(1.0, "t1", {1})}}},  // c: op 2 left the GPU
      {"t2", {{"a", timing(7.0, "t2")}, {"b", timing(5.0, "64x32x4x32")}, {"d", timing(1.0, "t2", {5}, true)}}},
      {"t3", {{"a", timing(7.5, "t3")}}},
  };
  auto choices = gpu_tune::choose_tiles(base, candidates, 0.03);
  ASSERT_EQ(choices.size(), 4u);
  std::map<std::string, gpu_tune::ShapeChoice> by;
  for (const auto& c : choices) by[c.shape] = c;
  EXPECT_EQ(by["a"].best, "t2");  // the fastest of three winners
  EXPECT_DOUBLE_EQ(by["a"].best_ms, 7.0);
  EXPECT_TRUE(by["a"].write);
  EXPECT_EQ(by["b"].best, "t1");      // t2 ran the profile's own kernel for b: its 5.0 is noise
  EXPECT_FALSE(by["b"].write);        // 1 % is below the 3 % asked for
  EXPECT_TRUE(by["c"].best.empty());  // the only faster run had fewer ops on the GPU
  EXPECT_FALSE(by["c"].write);
  EXPECT_FALSE(by["d"].write);  // an op with several products
  EXPECT_NE(by["d"].note.find("other products"), std::string::npos);
  EXPECT_TRUE(gpu_tune::choose_tiles(base, {}, 0.03)[0].best.empty());
}

// A MatMul large enough for the GPU path, with B a constant (weights).
struct MatMulCase {
  explicit MatMulCase(int64_t depth = 40)
      : inputs{random_tensor(DType::F32, {24, depth}, 1), random_tensor(DType::F32, {depth, 72}, 2)} {}
  fb::OpT op = make_op(OpType::MatMul);
  Inputs inputs;
};

Result<VulkanRun> run_matmul(const MatMulCase& c, SessionOptions options) {
  return run_op_vulkan(c.op, c.inputs, GpuPrecision::kF32, /*constant_mask=*/2u, std::move(options));
}

void expect_matches_reference(const MatMulCase& c, const VulkanRun& run) {
  auto expected = run_op(c.op, c.inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok());
  expect_tensors_near(run.outputs[0], (*expected)[0], 1e-5, 1e-5, "MatMul");
}

std::string device_tuning_file(const std::string& dir) {
  auto device = vk::Device::get();
  return device.ok() ? dir + "/" + vk::gemm_tuning_file_name(device.value()->info()) : std::string();
}

TEST(GemmTuningVk, SessionTakesTheTunedTileForItsShapeOnly) {
  MOTE_REQUIRE_VULKAN();
  ScopedTempDir dir("gemm-tuning");
  MatMulCase c;
  SessionOptions options;
  options.pipeline_cache_dir = dir.path();
  auto plain = run_matmul(c, options);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  ASSERT_EQ(plain->placement[0].device, "vulkan");
  ASSERT_EQ(plain->placement[0].gemms.size(), 1u);
  const GpuGemm launched = plain->placement[0].gemms[0];
  EXPECT_FALSE(launched.tuned);
  EXPECT_NE(plain->stats.gpu_gemm_tuning.find("no tuning file"), std::string::npos) << plain->stats.gpu_gemm_tuning;

  // A file naming this shape with another tile, and another shape.
  auto device = vk::Device::get();
  ASSERT_TRUE(device.ok());
  const vk::DeviceFeatures& f = device.value()->features();
  // The other core than the profile's, so the launched tile must differ.
  const std::string chosen = f.gemm_tile.shared_core ? "8x8x2x8" : "shared:1";
  std::optional<vk::GemmShape> parsed = vk::GemmShape::parse(launched.shape);
  ASSERT_TRUE(parsed) << launched.shape;
  const vk::GemmShape shape = *parsed;
  vk::GemmTuning tuning;
  tuning.entries[shape] = {vk::parse_gemm_tile(chosen, f.gemm_tile, f).value(), 1.0};
  vk::GemmShape other = shape;
  other.depth += 1;
  tuning.entries[other] = {vk::parse_gemm_tile("16x4x1x4", f.gemm_tile, f).value(), 1.0};
  std::ofstream(device_tuning_file(dir.path())) << vk::encode_gemm_tuning(tuning, device.value()->info());

  auto tuned = run_matmul(c, options);
  ASSERT_TRUE(tuned.ok()) << tuned.status().to_string();
  ASSERT_EQ(tuned->placement[0].gemms.size(), 1u);
  EXPECT_NE(tuned->placement[0].gemms[0].tile, launched.tile);
  EXPECT_EQ(tuned->placement[0].gemms[0].tile.rfind("shared", 0) == 0, !f.gemm_tile.shared_core)
      << tuned->placement[0].gemms[0].tile;
  EXPECT_TRUE(tuned->placement[0].gemms[0].tuned);
  EXPECT_NE(tuned->stats.gpu_gemm_tuning.find("1 of this plan's 1 GPU GEMMs tuned"), std::string::npos)
      << tuned->stats.gpu_gemm_tuning;
  expect_matches_reference(c, *tuned);

  // A product of another shape (depth 44) keeps the profile's tile.
  auto untouched = run_matmul(MatMulCase(44), options);
  ASSERT_TRUE(untouched.ok()) << untouched.status().to_string();
  EXPECT_FALSE(untouched->placement[0].gemms.at(0).tuned);
  EXPECT_NE(untouched->stats.gpu_gemm_tuning.find("0 of this plan's 1"), std::string::npos)
      << untouched->stats.gpu_gemm_tuning;

  // Tuning off: the profile's tile again.
  options.use_gpu_tuning = false;
  auto off = run_matmul(c, options);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->placement[0].gemms[0].tile, launched.tile);
  EXPECT_FALSE(off->placement[0].gemms[0].tuned);
}

TEST(GemmTuningVk, UnusableFileIsIgnoredWithANote) {
  MOTE_REQUIRE_VULKAN();
  ScopedTempDir dir("gemm-tuning-bad");
  MatMulCase c;
  std::ofstream(device_tuning_file(dir.path())) << "mote-gemm-tuning 1\ngarbage\n";
  SessionOptions options;
  options.pipeline_cache_dir = dir.path();
  auto run = run_matmul(c, options);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_NE(run->stats.gpu_gemm_tuning.find("ignored"), std::string::npos) << run->stats.gpu_gemm_tuning;
  EXPECT_NE(run->stats.gpu_gemm_tuning.find("line 2"), std::string::npos) << run->stats.gpu_gemm_tuning;
  EXPECT_FALSE(run->placement[0].gemms.at(0).tuned);
  expect_matches_reference(c, *run);
}

TEST(GemmTuningVk, SessionOverrideTileAndItsErrors) {
  MOTE_REQUIRE_VULKAN();
  MatMulCase c;
  SessionOptions options;
  options.gpu_gemm_tile = "32x8x2x8";
  auto run = run_matmul(c, options);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(run->placement[0].gemms.at(0).tile, "32x8x2x8");
  expect_matches_reference(c, *run);
  options.gpu_gemm_tile = "32x8x2";
  auto bad = run_matmul(c, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("gpu_gemm_tile"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("32x8x2"), std::string::npos) << bad.status().message();
}

TEST(GemmTuningVk, TunerRewritesItsShapesAndKeepsOthers) {
  MOTE_REQUIRE_VULKAN();
  ScopedTempDir dir("gemm-tuner");
  // A 3x3 convolution on 2 channels (too few for Winograd): one implicit GEMM.
  fb::OpT op = make_op(OpType::Conv, conv_attrs({}, {1, 1, 1, 1}));
  Inputs inputs = {random_tensor(DType::F32, {1, 2, 40, 40}, 3), random_tensor(DType::F32, {16, 2, 3, 3}, 4),
                   random_tensor(DType::F32, {16}, 5)};
  auto built = one_op_model(op, inputs, /*constant_mask=*/6u);
  ASSERT_TRUE(built.ok()) << built.status().to_string();
  const std::string shape = "16x1600x18x1";  // channels out x pixels x (channels in x 9) x groups

  // A stale entry for the conv's shape, on a tile not among the candidates,
  // and one for a shape this model lacks.
  auto device = vk::Device::get();
  ASSERT_TRUE(device.ok());
  const vk::DeviceFeatures& f = device.value()->features();
  vk::GemmTuning seeded;
  seeded.entries[{16, 1600, 18, 1}] = {vk::parse_gemm_tile("8x4x1x1", f.gemm_tile, f).value(), 1.0};
  seeded.entries[{7, 7, 7, 7}] = {vk::parse_gemm_tile("16x4x1x4", f.gemm_tile, f).value(), 2.0};
  std::ofstream(device_tuning_file(dir.path())) << vk::encode_gemm_tuning(seeded, device.value()->info());

  SessionOptions options;
  options.pipeline_cache_dir = dir.path();
  GpuTuneOptions tune;
  tune.candidates = {"16x4x1x4", "not-a-tile"};
  tune.runs = 1;
  std::vector<std::string> progress;
  tune.progress = [&](const std::string& line) { progress.push_back(line); };
  auto report = tune_gpu_gemms(built->model, built->feeds, options, tune);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(report->candidates_tried, 1);
  ASSERT_EQ(report->skipped.size(), 1u);
  EXPECT_NE(report->skipped[0].find("not-a-tile"), std::string::npos);
  ASSERT_EQ(report->shapes.size(), 1u);
  const GpuTunedShape& s = report->shapes[0];
  EXPECT_EQ(s.shape, shape);
  EXPECT_TRUE(s.best_tile == "16x4x1x4" || s.best_tile == s.profile_tile) << s.best_tile;
  EXPECT_TRUE(!s.written || s.best_tile == "16x4x1x4");
  EXPECT_EQ(report->path, device_tuning_file(dir.path()));
  EXPECT_GE(progress.size(), 3u);  // the profile, the candidate, the result
  EXPECT_GT(report->model_ms_before, 0);
  EXPECT_GT(report->model_ms_after, 0);

  std::ifstream in(report->path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto file = vk::decode_gemm_tuning(text, device.value()->info(), f);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->entries.count({7, 7, 7, 7}), 1u) << "another model's entry was lost";
  auto conv = file->entries.find({16, 1600, 18, 1});
  ASSERT_EQ(conv != file->entries.end(), s.written) << text;
  if (s.written) EXPECT_EQ(vk::format_gemm_tile(conv->second.tile), "16x4x1x4");

  // Later sessions take the file as it now is, with unchanged results.
  options.backend = Backend::kVulkan;
  auto session = Session::create(built->model, options);
  ASSERT_TRUE(session.ok());
  auto out = (*session)->run(built->feeds);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  std::vector<OpPlacement> placement = (*session)->placement();
  ASSERT_EQ(placement.at(0).gemms.size(), 1u);
  EXPECT_EQ(placement[0].gemms[0].tuned, s.written);
  auto expected = run_op(op, inputs, Impl::kReference);
  ASSERT_TRUE(expected.ok());
  expect_tensors_near((*out)[0], (*expected)[0], 1e-4, 1e-5, "tuned Conv");
}

}  // namespace
}  // namespace mote::test
