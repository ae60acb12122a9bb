// mote-run: run a .mote model once or many times on .npy or random inputs,
// print and save the outputs, and report latency.
//
//   mote-run model.mote --input x=x.npy --output-dir out --repeat 20
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <thread>

#include "mote/model.hpp"
#include "mote/session.hpp"
#include "sdk/tools/common/cli_args.hpp"
#include "sdk/tools/common/fp16_option.hpp"
#include "sdk/tools/common/npy.hpp"
#include "sdk/tools/common/text.hpp"
#include "sdk/tools/common/timing.hpp"
#include "sdk/tools/common/tool_main.hpp"
#include "sdk/tools/run/inputs.hpp"
#include "sdk/tools/run/outputs.hpp"

namespace mote::tools {
namespace {

struct RunOptions {
  std::string model_path;
  std::vector<std::string> input_args;
  std::vector<std::string> shape_args;
  std::string output_dir;
  std::string backend = "cpu";
  Fp16Option fp16;
  bool placement = false;
  bool planar = false;
  std::vector<std::string> cpu_ops;
  int threads = 0;
  int repeat = 10;
  int warmup = 1;
  uint32_t seed = 0;
  size_t values = 8;
};

Result<InputOptions> input_options(const RunOptions& o) {
  InputOptions inputs;
  inputs.seed = o.seed;
  MOTE_ASSIGN_OR_RETURN(inputs.shapes, parse_shape_args(o.shape_args));
  for (const std::string& arg : o.input_args) {
    MOTE_ASSIGN_OR_RETURN(auto pair, split_assignment(arg, "--input"));
    if (!inputs.files.emplace(pair.first, pair.second).second) {
      return invalid_argument("--input " + pair.first + " is given twice");
    }
  }
  return inputs;
}

Status save_outputs(const std::string& dir, const std::vector<TensorDesc>& decls, const std::vector<Tensor>& outputs,
                    std::vector<std::string>& paths) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io_error(dir + ": cannot create the output directory: " + ec.message());
  std::vector<std::string> names;
  for (const TensorDesc& d : decls) names.push_back(d.name);
  std::vector<std::string> files = output_file_names(names);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = (std::filesystem::path(dir) / files[i]).string();
    MOTE_RETURN_IF_ERROR(write_npy(path, outputs[i]));
    paths.push_back(path);
  }
  return {};
}

// One line per op: where it runs and, when not on the GPU, why; on the GPU,
// its matrix products' shapes and tiles (what `mote-bench --tune` tunes),
// and with f16 storage how it stores its float tensors ("f16 math": its
// products are f16 too).
void print_placement(const std::vector<OpPlacement>& placement) {
  size_t width = 2;
  bool mixed = false;  // some op stores f16: then each GPU op's precision is shown
  for (const OpPlacement& p : placement) {
    width = std::max(width, p.op.size());
    mixed = mixed || p.precision == "f16";
  }
  std::printf("placement\n");
  for (const OpPlacement& p : placement) {
    std::string detail = p.reason;
    for (const GpuGemm& g : p.gemms) {
      detail += (detail.empty() ? "" : ", ") + ("GEMM " + g.shape + " on " + g.tile) + (g.tuned ? " (tuned)" : "");
    }
    std::string where = p.device + (mixed && !p.precision.empty() ? " " + p.precision : "");
    if (p.f16_arithmetic) where += " math";  // f16 products as well
    std::printf("  #%-4d %-*s  %-16s %s\n", p.op_index, static_cast<int>(width), p.op.c_str(), where.c_str(),
                detail.c_str());
  }
}

Status run(const RunOptions& o) {
  MOTE_ASSIGN_OR_RETURN(InputOptions input_opts, input_options(o));
  MOTE_ASSIGN_OR_RETURN(Backend backend, parse_backend(o.backend));
  MOTE_ASSIGN_OR_RETURN(auto model, Model::load(o.model_path));
  MOTE_ASSIGN_OR_RETURN(std::vector<PreparedInput> prepared, make_inputs(*model, input_opts));

  SessionOptions session_options;
  session_options.backend = backend;
  session_options.threads = o.threads;
  session_options.channel_blocked_layout = !o.planar;
  session_options.cpu_ops = o.cpu_ops;
  std::vector<TensorDesc> input_decls = model->inputs();
  std::map<std::string, Shape> shapes;
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < prepared.size(); ++k) {
    shapes[input_decls[k].name] = prepared[k].tensor.shape();
    inputs.push_back(prepared[k].tensor);
  }
  if (o.fp16.mode != "off" && (backend == Backend::kCpu || backend == Backend::kReference)) {
    return invalid_argument("--fp16 is for the GPU: add --backend vulkan (or auto)");
  }
  MOTE_RETURN_IF_ERROR(apply_fp16_option(o.fp16, model, inputs, session_options));
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(model, session_options));
  Stopwatch prepare_clock;
  MOTE_RETURN_IF_ERROR(session->prepare(shapes));
  double prepare_ms = prepare_clock.elapsed_ms();

  Stopwatch first_clock;
  MOTE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, session->run(inputs));
  double first_ms = first_clock.elapsed_ms();
  for (int i = 0; i < o.warmup; ++i) MOTE_RETURN_IF_ERROR(session->run(inputs).status());
  std::vector<double> samples;
  for (int i = 0; i < o.repeat; ++i) {
    Stopwatch clock;
    MOTE_RETURN_IF_ERROR(session->run(inputs).status());
    samples.push_back(clock.elapsed_ms());
  }

  std::vector<std::string> saved;
  std::vector<TensorDesc> output_decls = model->outputs();
  if (!o.output_dir.empty()) MOTE_RETURN_IF_ERROR(save_outputs(o.output_dir, output_decls, outputs, saved));

  // The session's thread pool resolves 0 the same way (one per hardware thread).
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const PlanStats& plan = session->plan_stats();
  std::printf("model    %s\n", o.model_path.c_str());
  std::printf("backend  %s", backend_name(plan.backend));
  if (plan.backend != backend) std::printf(" (asked for %s)", backend_name(backend));
  if (plan.backend == Backend::kVulkan) {
    std::printf(" on %s: %d ops on the GPU, %d on the CPU (%d threads)%s", plan.device_name.c_str(), plan.ops_gpu,
                plan.ops_cpu, threads, describe_fp16(session_options).c_str());
  } else {
    std::printf(", %d thread%s", threads, threads == 1 ? "" : "s");
  }
  std::printf("\n");
  if (plan.backend == Backend::kVulkan) {
    std::printf(
        "gpu      %d command buffer%s, %d dispatches (%d ops as views), %d barriers, %d transfers per run; %s device "
        "memory\n",
        plan.gpu_segments, plan.gpu_segments == 1 ? "" : "s", plan.gpu_dispatches, plan.gpu_views, plan.gpu_barriers,
        plan.gpu_transfers, format_bytes(plan.device_arena_bytes + plan.device_weight_bytes).c_str());
    std::printf("cache    %s\n", plan.pipeline_cache.c_str());
    std::printf("gemm     %s\n", plan.gpu_gemm_tuning.c_str());
    std::printf("storage  %s\n", plan.gpu_precision.c_str());
  }
  if (o.placement) print_placement(session->placement());
  std::printf("inputs\n");
  for (size_t k = 0; k < prepared.size(); ++k) {
    const Tensor& t = prepared[k].tensor;
    std::printf("  %s  %s  %s  from %s\n", input_decls[k].name.c_str(), dtype_name(t.dtype()),
                shape_to_string(t.shape()).c_str(), prepared[k].source.c_str());
  }
  std::printf("outputs\n");
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& t = outputs[k];
    std::printf("  %s  %s  %s  %s%s\n", output_decls[k].name.c_str(), dtype_name(t.dtype()),
                shape_to_string(t.shape()).c_str(), describe_values(t, o.values).c_str(),
                saved.empty() ? "" : ("  -> " + saved[k]).c_str());
  }
  LatencyStats stats = summarize_latency(samples);
  std::printf("latency (ms)\n");
  std::printf("  prepare    %s\n", format_fixed(prepare_ms, 3).c_str());
  std::printf("  first run  %s\n", format_fixed(first_ms, 3).c_str());
  if (stats.count) {
    std::printf("  %zu runs    min %s  median %s  mean %s  (after %d warm-up)\n", stats.count,
                format_fixed(stats.min_ms, 3).c_str(), format_fixed(stats.median_ms, 3).c_str(),
                format_fixed(stats.mean_ms, 3).c_str(), o.warmup);
  }
  return {};
}

}  // namespace
}  // namespace mote::tools

int main(int argc, char** argv) {
  CLI::App app("Run a .mote model on .npy or random inputs; print and save the outputs and the latency.",
               "mote-run");
  mote::tools::RunOptions o;
  app.add_option("MODEL", o.model_path, "the .mote file to run")->required();
  // One value per occurrence (repeat the flag), so MODEL may follow them.
  app.add_option("--input", o.input_args, "input data NAME=FILE.npy (others get seeded random values)")
      ->allow_extra_args(false);
  app.add_option("--shape", o.shape_args, "input shape NAME=1x3x224x224 for random data (needed for dynamic dims)")
      ->allow_extra_args(false);
  app.add_option("--output-dir", o.output_dir, "write each output to DIR/NAME.npy");
  app.add_option("--threads", o.threads, "CPU threads (0 = one per hardware thread)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeat", o.repeat, "timed runs after the first")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup", o.warmup, "untimed runs between the first and the timed ones")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--backend", o.backend,
                 "cpu (optimised kernels), vulkan (GPU, each op it lacks on the CPU), auto (vulkan on a real GPU, "
                 "else cpu) or reference (plain kernels); MOTE_BACKEND overrides it")
      ->capture_default_str();
  mote::tools::add_fp16_option(app, o.fp16);
  app.add_flag("--placement", o.placement, "print where each op runs (vulkan, cpu, folded) and why");
  app.add_flag("--planar", o.planar, "cpu: keep every tensor NCHW (no channel-blocked layout), to compare");
  app.add_option("--cpu-op", o.cpu_ops, "with vulkan: keep this op type or op name on the CPU (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--seed", o.seed, "seed of the random inputs")->capture_default_str();
  app.add_option("--values", o.values, "how many values of each output to print")->capture_default_str();
  return mote::tools::run_tool(app, argc, argv, [&] { return mote::tools::run(o); });
}
