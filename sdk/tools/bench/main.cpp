// mote-bench: latency, prepare time and memory of a model on each backend,
// side by side, and optionally where the time goes op by op.
//
//   mote-bench model.mote --backend cpu,vulkan --repeat 50 --per-op
//   mote-bench model.mote --backend vulkan --tune
//
// Prepare is measured twice per backend. Cold: no compiled pipelines in the
// process and an empty pipeline-cache directory, as on an app's first start.
// Warm: pipelines dropped again but the cache file the cold prepare wrote is
// there, as on every later start. (On the CPU both are plain prepares.)
//
// GEMM tiles come from the tuning file in the user's cache directory
// (--tuning-dir), written by --tune, which runs before the benchmark: every
// candidate tile is timed on the model and the winning tile per product
// shape is stored, so later sessions of any app on this device use it.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "mote/gpu.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"
#include "sdk/tools/common/cli_args.hpp"
#include "sdk/tools/common/fp16_option.hpp"
#include "sdk/tools/common/text.hpp"
#include "sdk/tools/common/timing.hpp"
#include "sdk/tools/common/tool_main.hpp"
#include "sdk/tools/run/inputs.hpp"

namespace mote::tools {
namespace {

struct BenchOptions {
  std::string model_path;
  std::string backends = "cpu,vulkan";
  std::vector<std::string> shape_args;
  int repeat = 20;
  int warmup = 3;
  int threads = 0;
  Fp16Option fp16;
  bool per_op = false;
  int top = 15;
  bool planar = false;
  bool tune = false;
  double tune_seconds = 120;
  int tune_runs = 3;
  std::vector<std::string> tune_candidates;
  std::string gemm_tile;
  std::string tuning_dir = default_gpu_cache_dir();
  bool no_tuning = false;
};

struct BackendResult {
  std::string name;
  std::string device;
  double prepare_cold_ms = 0;
  double prepare_warm_ms = 0;
  LatencyStats latency;
  double p90_ms = 0;
  uint64_t host_arena = 0;
  uint64_t device_bytes = 0;
  int ops_gpu = 0, ops_cpu = 0;
  std::string note;
  std::string gemm_tiles;  // Vulkan: where the GEMM tiles came from
};

uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// "32.0 KiB": format_bytes without the exact byte count, for table cells.
std::string short_bytes(uint64_t bytes) {
  std::string s = format_bytes(bytes);
  return s.substr(0, s.find(" ("));
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

struct Fixture {
  std::shared_ptr<const Model> model;
  std::map<std::string, Shape> shapes;
  std::vector<Tensor> inputs;
  SessionOptions precision;  // gpu_precision and gpu_f32_ops from --fp16
};

Result<std::unique_ptr<Session>> prepared_session(const Fixture& f, SessionOptions options, double& prepare_ms) {
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(f.model, options));
  Stopwatch clock;
  MOTE_RETURN_IF_ERROR(session->prepare(f.shapes));
  prepare_ms = clock.elapsed_ms();
  return session;
}

// Average time per op over `repeat` profiled runs, slowest first.
Status print_per_op(const Fixture& f, SessionOptions options, int repeat, int top) {
  options.profile = true;
  double ignored = 0;
  MOTE_ASSIGN_OR_RETURN(auto session, prepared_session(f, options, ignored));
  MOTE_RETURN_IF_ERROR(session->run(f.inputs).status());  // first run: lazy work
  std::map<int, OpTime> total;
  for (int r = 0; r < std::max(repeat, 1); ++r) {
    MOTE_RETURN_IF_ERROR(session->run(f.inputs).status());
    for (const OpTime& t : session->profile()) {
      OpTime& acc = total[t.op_index];
      acc.op_index = t.op_index;
      acc.op = t.op;
      acc.device = t.device;
      acc.ms += t.ms / std::max(repeat, 1);
    }
  }
  std::vector<OpTime> sorted;
  double sum = 0;
  for (auto& [index, t] : total) {
    sorted.push_back(t);
    sum += t.ms;
  }
  std::sort(sorted.begin(), sorted.end(), [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
  std::printf("per op, %s (mean of %d runs; GPU ops by timestamp queries, CPU ops by wall clock)\n",
              backend_name(session->plan_stats().backend), std::max(repeat, 1));
  int shown = 0;
  for (const OpTime& t : sorted) {
    if (top > 0 && shown++ >= top) break;
    std::printf("  %9.4f ms  %5.1f%%  %-7s #%-4d %s\n", t.ms, sum > 0 ? 100.0 * t.ms / sum : 0.0, t.device.c_str(),
                t.op_index, t.op.c_str());
  }
  std::printf("  %9.4f ms  total of %zu ops%s\n", sum, sorted.size(),
              top > 0 && static_cast<int>(sorted.size()) > top ? " (slowest shown)" : "");
  return {};
}

// --tune: the tuner's progress on stderr, then its table.
Status tune(const Fixture& f, const BenchOptions& o) {
  if (o.tuning_dir.empty())
    return invalid_argument("--tune needs a tuning directory (--tuning-dir or MOTE_CACHE_DIR)");
  SessionOptions options;
  options.threads = o.threads;
  options.gpu_precision = f.precision.gpu_precision;
  options.gpu_f16_arithmetic = f.precision.gpu_f16_arithmetic;
  options.gpu_f32_ops = f.precision.gpu_f32_ops;
  options.gpu_tuning_dir = o.tuning_dir;
  // Candidates' pipelines go to a scratch directory, not the user's cache.
  namespace fs = std::filesystem;
  fs::path cache = fs::temp_directory_path() / ("mote-bench-tune-" + std::to_string(::getpid()));
  options.pipeline_cache_dir = cache.string();
  GpuTuneOptions t;
  t.budget_seconds = o.tune_seconds;
  t.runs = o.tune_runs;
  t.candidates = o.tune_candidates;
  t.progress = [](const std::string& line) { std::fprintf(stderr, "mote-bench --tune: %s\n", line.c_str()); };
  Stopwatch clock;
  auto report = tune_gpu_gemms(f.model, f.inputs, options, t);
  std::error_code ec;
  fs::remove_all(cache, ec);
  MOTE_RETURN_IF_ERROR(report.status());
  const GpuTuneReport& r = report.value();
  std::printf("GEMM tuning on %s: %d candidate tile(s) in %.1f s\n", r.device.c_str(), r.candidates_tried,
              clock.elapsed_ms() / 1000);
  std::printf("  %-22s %-20s %10s  %-20s %10s  %s\n", "shape (RxCxDxB)", "profile ran", "ms", "best", "ms", "");
  for (const GpuTunedShape& s : r.shapes) {
    std::string verdict = s.written ? "written" : s.note.empty() ? "kept profile" : "kept profile: " + s.note;
    std::printf("  %-22s %-20s %10.3f  %-20s %10.3f  %s\n", s.shape.c_str(), s.profile_tile.c_str(), s.profile_ms,
                s.best_tile.c_str(), s.best_ms, verdict.c_str());
  }
  for (const std::string& s : r.skipped) std::printf("  skipped %s\n", s.c_str());
  std::printf("  a run: %.3f ms with the profile's tiles, %.3f ms tuned (medians of %d)\n", r.model_ms_before,
              r.model_ms_after, o.tune_runs);
  std::printf("  tuning file: %s\n", r.path.c_str());
  return {};
}

Result<BackendResult> bench_backend(const Fixture& f, const BenchOptions& o, Backend backend) {
  BackendResult r;
  r.name = backend_name(backend);
  SessionOptions options;
  options.backend = backend;
  options.threads = o.threads;
  options.channel_blocked_layout = !o.planar;
  options.gpu_precision = f.precision.gpu_precision;
  options.gpu_f16_arithmetic = f.precision.gpu_f16_arithmetic;
  options.gpu_f32_ops = f.precision.gpu_f32_ops;
  namespace fs = std::filesystem;
  fs::path cache = fs::temp_directory_path() / ("mote-bench-cache-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(cache, ec);
  options.pipeline_cache_dir = cache.string();
  options.gpu_tuning_dir = o.tuning_dir;
  options.use_gpu_tuning = !o.no_tuning;
  options.gpu_gemm_tile = o.gemm_tile;

  reset_gpu_pipelines();
  MOTE_ASSIGN_OR_RETURN(auto cold, prepared_session(f, options, r.prepare_cold_ms));
  cold.reset();
  reset_gpu_pipelines();
  MOTE_ASSIGN_OR_RETURN(auto session, prepared_session(f, options, r.prepare_warm_ms));
  const PlanStats& stats = session->plan_stats();
  r.name = backend_name(stats.backend);
  if (stats.backend != backend) r.note = std::string("asked for ") + backend_name(backend);
  r.device = stats.backend == Backend::kVulkan ? stats.device_name : std::to_string(session->thread_count()) + " threads";
  if (stats.blocked_tensors > 0) r.device += ", " + std::to_string(stats.blocked_tensors) + " channel-blocked";
  r.host_arena = stats.arena_bytes;
  r.device_bytes = stats.device_arena_bytes + stats.device_weight_bytes;
  r.ops_gpu = stats.ops_gpu;
  r.ops_cpu = stats.ops_cpu;
  if (stats.backend == Backend::kVulkan) r.gemm_tiles = stats.gpu_gemm_tuning;

  MOTE_RETURN_IF_ERROR(session->run(f.inputs).status());
  for (int i = 0; i < o.warmup; ++i) MOTE_RETURN_IF_ERROR(session->run(f.inputs).status());
  std::vector<double> samples;
  for (int i = 0; i < o.repeat; ++i) {
    Stopwatch clock;
    MOTE_RETURN_IF_ERROR(session->run(f.inputs).status());
    samples.push_back(clock.elapsed_ms());
  }
  r.latency = summarize_latency(samples);
  r.p90_ms = percentile(samples, 0.9);
  session.reset();
  if (o.per_op) MOTE_RETURN_IF_ERROR(print_per_op(f, options, o.repeat, o.top));
  fs::remove_all(cache, ec);
  return r;
}

Status bench(const BenchOptions& o) {
  Fixture f;
  MOTE_ASSIGN_OR_RETURN(f.model, Model::load(o.model_path));
  InputOptions input_opts;
  MOTE_ASSIGN_OR_RETURN(input_opts.shapes, parse_shape_args(o.shape_args));
  MOTE_ASSIGN_OR_RETURN(std::vector<PreparedInput> prepared, make_inputs(*f.model, input_opts));
  std::vector<TensorDesc> decls = f.model->inputs();
  for (size_t k = 0; k < prepared.size(); ++k) {
    f.shapes[decls[k].name] = prepared[k].tensor.shape();
    f.inputs.push_back(prepared[k].tensor);
  }
  const std::vector<std::string> backends = split_list(o.backends);
  const bool gpu =
      std::any_of(backends.begin(), backends.end(), [](const auto& b) { return b != "cpu" && b != "reference"; });
  if (o.fp16.mode == "auto" && gpu) {
    std::fprintf(stderr, "mote-bench: --fp16 auto ...\n");
    f.precision.backend =
        std::find(backends.begin(), backends.end(), "vulkan") != backends.end() ? Backend::kVulkan : Backend::kAuto;
    MOTE_RETURN_IF_ERROR(apply_fp16_option(o.fp16, f.model, f.inputs, f.precision));
  } else if (o.fp16.mode == "on") {
    MOTE_RETURN_IF_ERROR(apply_fp16_option(o.fp16, f.model, f.inputs, f.precision));  // no measuring for "on"
  }
  if (o.tune) MOTE_RETURN_IF_ERROR(tune(f, o));
  std::vector<BackendResult> results;
  for (const std::string& name : backends) {
    MOTE_ASSIGN_OR_RETURN(Backend backend, parse_backend(name));
    std::fprintf(stderr, "mote-bench: %s ...\n", name.c_str());
    MOTE_ASSIGN_OR_RETURN(BackendResult r, bench_backend(f, o, backend));
    results.push_back(std::move(r));
  }
  std::printf("model  %s\n", o.model_path.c_str());
  std::printf("runs   %d timed after %d warm-up%s\n", o.repeat, o.warmup, describe_fp16(f.precision).c_str());
  std::printf("%-9s %-34s %11s %11s %9s %9s %9s %12s %12s  %s\n", "backend", "device", "prep cold", "prep warm",
              "p50 ms", "p90 ms", "min ms", "host arena", "device mem", "ops gpu/cpu");
  for (const BackendResult& r : results) {
    std::printf("%-9s %-34s %8.1f ms %8.1f ms %9.3f %9.3f %9.3f %12s %12s  %d/%d %s\n", r.name.c_str(),
                r.device.substr(0, 34).c_str(), r.prepare_cold_ms, r.prepare_warm_ms, r.latency.median_ms, r.p90_ms,
                r.latency.min_ms, short_bytes(r.host_arena).c_str(),
                r.device_bytes ? short_bytes(r.device_bytes).c_str() : "-", r.ops_gpu, r.ops_cpu,
                r.note.c_str());
  }
  for (const BackendResult& r : results) {
    if (!r.gemm_tiles.empty()) std::printf("GEMM tiles (%s): %s\n", r.name.c_str(), r.gemm_tiles.c_str());
  }
  std::printf("peak host memory (process RSS)  %s\n", format_bytes(peak_rss_bytes()).c_str());
  return {};
}

}  // namespace
}  // namespace mote::tools

int main(int argc, char** argv) {
  CLI::App app("Benchmark a .mote model: latency percentiles, cold and warm prepare, memory, per-op time.",
               "mote-bench");
  mote::tools::BenchOptions o;
  app.add_option("MODEL", o.model_path, "the .mote file to benchmark")->required();
  app.add_option("--backend", o.backends, "comma-separated backends: cpu, vulkan, auto, reference")
      ->capture_default_str();
  app.add_option("--repeat", o.repeat, "timed runs")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "untimed runs first")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--threads", o.threads, "CPU threads (0 = one per hardware thread)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--shape", o.shape_args, "input shape NAME=1x3x224x224 (for dynamic inputs)")->allow_extra_args(false);
  mote::tools::add_fp16_option(app, o.fp16);
  app.add_flag("--per-op", o.per_op, "also print time per op, slowest first");
  app.add_flag("--planar", o.planar, "CPU: keep every tensor NCHW (no channel-blocked layout), to compare");
  app.add_option("--top", o.top, "with --per-op: ops to list (0 = all)")->capture_default_str();
  app.add_flag("--tune", o.tune,
               "Vulkan: time candidate GEMM tiles on this model first and store the winner per shape in the tuning "
               "file (docs/vulkan.md, 'GEMM tuning')");
  app.add_option("--tune-seconds", o.tune_seconds, "with --tune: no candidate starts after this many seconds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--tune-runs", o.tune_runs, "with --tune: timed runs per candidate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--tune-candidates", o.tune_candidates, "with --tune: tiles to try (default: a list per GEMM core)")
      ->delimiter(',');
  app.add_option("--gemm-tile", o.gemm_tile, "Vulkan: run every GEMM on this tile (LXxTMxTNxBK, shared, shared:N)");
  app.add_option("--tuning-dir", o.tuning_dir, "directory of the GEMM tuning file")->capture_default_str();
  app.add_flag("--no-tuning", o.no_tuning, "Vulkan: ignore the tuning file (the device profile's tiles)");
  return mote::tools::run_tool(app, argc, argv, [&] { return mote::tools::bench(o); });
}
