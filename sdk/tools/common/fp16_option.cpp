#include "sdk/tools/common/fp16_option.hpp"

#include <algorithm>
#include <cstdio>

#include "mote/gpu.hpp"

namespace mote::tools {

void add_fp16_option(CLI::App& app, Fp16Option& option) {
  CLI::Option* fp16 =
      app.add_option("--fp16", option.mode,
                     "with vulkan: store float tensors as f16 on the GPU (arithmetic stays f32 unless "
                     "--fp16-arithmetic): on, off, or auto to "
                     "keep f32 the ops whose error grows, measured on this run's inputs (docs/vulkan.md, 'Mixed "
                     "precision'); --fp16 alone is on, the default off")
          ->expected(0, 1)
          ->default_str("on")
          ->check(CLI::IsMember({"on", "off", "auto"}));
  app.add_option("--fp16-tolerance", option.tolerance,
                 "with --fp16 auto: the largest accepted max|f16 - f32| / max|f32| of an output")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--fp16-arithmetic", option.arithmetic,
               "with --fp16 on or auto: the f16 ops' convolutions and matrix products also multiply in f16, "
               "summing 8 products at a time in f16 and those sums in f32 (needs the device's shaderFloat16; "
               "docs/vulkan.md, 'Mixed precision')")
      ->needs(fp16);
}

Status apply_fp16_option(const Fp16Option& option, const std::shared_ptr<const Model>& model,
                         const std::vector<Tensor>& inputs, SessionOptions& options) {
  options.gpu_precision = option.mode == "off" ? GpuPrecision::kF32 : GpuPrecision::kF16Storage;
  options.gpu_f16_arithmetic = option.mode != "off" && option.arithmetic;
  if (option.mode != "auto") return {};
  GpuPrecisionOptions choose;
  choose.tolerance = option.tolerance;
  choose.progress = [](const std::string& line) { std::fprintf(stderr, "--fp16 auto: %s\n", line.c_str()); };
  auto chosen = choose_gpu_precision(model, inputs, options, choose);
  if (!chosen.ok() && chosen.status().code() == StatusCode::kUnsupported && options.backend == Backend::kAuto) {
    // Auto may mean the CPU here: nothing to choose, nothing to fail for.
    std::fprintf(stderr, "--fp16 auto: %s; f16 storage off\n", chosen.status().message().c_str());
    options.gpu_precision = GpuPrecision::kF32;
    return {};
  }
  MOTE_RETURN_IF_ERROR(chosen.status());
  const GpuPrecisionReport& r = chosen.value();
  int kept = 0, f16_math = 0;
  for (const GpuOpPrecision& op : r.ops) {
    kept += op.precision == "f32" ? 1 : 0;
    f16_math += op.f16_arithmetic ? 1 : 0;
  }
  char math[96] = "";
  if (r.f16_arithmetic) {
    std::snprintf(math, sizeof math, ", %d with f16 products", f16_math);
  } else if (r.error_f16_arithmetic > 0) {
    std::snprintf(math, sizeof math, ", products f32 (with f16 products: within %.2g at best)",
                  r.error_f16_arithmetic);
  } else if (options.gpu_f16_arithmetic) {
    std::snprintf(math, sizeof math, ", products f32 (no op ran f16 products on this device)");
  }
  std::printf(
      "fp16 auto on %s: %d of %zu GPU ops kept f32%s; outputs within %.2g of f32 (all f16: %.2g), %d f16 run%s\n",
      r.device.c_str(), kept, r.ops.size(), math, r.error_chosen, r.error_all_f16, r.rounds,
      r.rounds == 1 ? "" : "s");
  for (const GpuOpPrecision& op : r.ops) {
    if (!op.reason.empty()) std::printf("  f32  #%-4d %s: %s\n", op.op_index, op.op.c_str(), op.reason.c_str());
  }
  // Where f16 loses most, for a user weighing a tighter or looser tolerance.
  std::vector<GpuOpPrecision> f16_ops;
  for (const GpuOpPrecision& op : r.ops) {
    if (op.precision == "f16") f16_ops.push_back(op);
  }
  std::sort(f16_ops.begin(), f16_ops.end(), [](const auto& a, const auto& b) { return a.growth > b.growth; });
  for (size_t i = 0; i < f16_ops.size() && i < 3; ++i) {
    std::printf("  f16  #%-4d %s: error %.2g, %.2gx its inputs'\n", f16_ops[i].op_index, f16_ops[i].op.c_str(),
                f16_ops[i].error, f16_ops[i].growth);
  }
  std::printf("  a run: f32 %.3f ms, all f16 %.3f ms, as chosen %.3f ms (medians of %d)\n", r.ms_f32, r.ms_all_f16,
              r.ms_chosen, choose.runs);
  if (!r.met) {
    std::printf("  over the tolerance %.2g: running in f32\n", option.tolerance);
    options.gpu_precision = GpuPrecision::kF32;
    return {};
  }
  options.gpu_f32_ops = r.f32_ops;
  options.gpu_f16_arithmetic = r.f16_arithmetic;
  return {};
}

std::string describe_fp16(const SessionOptions& options) {
  if (options.gpu_precision != GpuPrecision::kF16Storage) return "";
  const std::string math = options.gpu_f16_arithmetic ? ", f16 arithmetic" : "";
  if (options.gpu_f32_ops.empty()) return ", f16 storage" + math;
  return ", f16 storage" + math + " but " + std::to_string(options.gpu_f32_ops.size()) + " op name(s)/type(s) f32";
}

}  // namespace mote::tools
