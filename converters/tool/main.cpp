// mote-convert IN.onnx|IN.tflite OUT.mote [--input-shape NAME:1x3x224x224] [--fp16]
//              [--quantize int8 --calibrate DIR|random [--calibration-method minmax|percentile]
//               [--weight-bits 8|7]]
//              [--check] [--inputs NAME=FILE.npy] [--dim SYMBOL=SIZE] [--verbose]
//
// Converts an ONNX or TFLite model (told apart by content) to a .mote model:
// imports it (converters/onnx, converters/tflite), runs the graph passes
// (converters/common), writes the file, prints a report. Exit status: 0 converted (and --check passed), 1 conversion
// failed or unsupported ops (all listed), 2 bad command line, 3 --check
// found differences or could not run.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

#include "converters/common/mote_reader.hpp"
#include "converters/common/mote_writer.hpp"
#include "converters/onnx/onnx_converter.hpp"
#include "converters/onnx/op_table.hpp"
#include "converters/tflite/op_table.hpp"
#include "converters/tflite/tflite_converter.hpp"
#include "converters/tool/check.hpp"
#include "converters/tool/report.hpp"

namespace {

using namespace mote;
using namespace mote::convert;

// "1x3x224x224" -> {1, 3, 224, 224}.
Result<Shape> parse_dims(const std::string& text) {
  Shape shape;
  size_t at = 0;
  while (at <= text.size()) {
    size_t x = text.find('x', at);
    std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) {
      return invalid_argument("bad dimensions '" + text + "' (expected e.g. 1x3x224x224)");
    }
    shape.push_back(std::stoll(part));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return shape;
}

// Splits "NAME<sep>VALUE" at the last separator (tensor names may hold ':').
Result<std::pair<std::string, std::string>> split_arg(const std::string& arg, char sep, const char* flag) {
  size_t at = arg.rfind(sep);
  if (at == std::string::npos || at == 0 || at + 1 == arg.size()) {
    return invalid_argument(std::string(flag) + " expects NAME" + sep + "VALUE, got '" + arg + "'");
  }
  return std::make_pair(arg.substr(0, at), arg.substr(at + 1));
}

// A TFLite file carries "TFL3" at bytes 4..7; ONNX files are protobuf.
bool is_tflite_file(const std::string& path) {
  char head[8] = {};
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  const bool full = std::fread(head, 1, sizeof head, f) == sizeof head;
  std::fclose(f);
  return full && std::string(head + 4, 4) == "TFL3";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// IN.mote (say, a model fine-tuned on the device) -> quantised OUT.mote: the
// graph is read back and only --quantize runs on it.
int requantize_mote(const std::string& in_path, const std::string& out_path, const ConvertOptions& options) {
  if (!options.quantize) {
    std::fprintf(stderr, "mote-convert: a .mote input is converted only with --quantize int8 (see --help)\n");
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  auto graph = read_mote_graph(in_path);
  auto fail = [&](const Status& st) {
    std::fprintf(stderr, "mote-convert: %s\n", st.with_context(in_path).to_string().c_str());
    return 1;
  };
  if (!graph.ok()) return fail(graph.status());
  PassLog log;
  // A model saved by training keeps Relu and Clip as ops of their own: fused,
  // they ride in the int8 Conv's requantisation instead of staying float.
  if (Status st = fuse_activations(*graph, log); !st.ok()) return fail(st);
  auto report = quantize_graph(*graph, *options.quantize, log);
  if (!report.ok()) return fail(report.status());
  auto bytes = write_mote(*graph);
  if (!bytes.ok()) return fail(bytes.status());
  if (Status st = save_file(out_path, *bytes); !st.ok()) return fail(st);
  std::printf("mote-convert: %s -> %s\n", in_path.c_str(), out_path.c_str());
  print_quantize_report(stdout, *report);
  std::printf("  file %zu bytes; time %.1f ms\n", bytes->size(),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Converts an ONNX model (opsets 7 to 21; later ones where the ops did not change) or a TFLite model "
                "(float32, float16 or int8; told apart by content) to Mote's .mote format, or quantises a .mote model "
                "(--quantize int8)."};
  std::string in_path, out_path;
  std::vector<std::string> shape_args, input_args, dim_args;
  bool fp16 = false, check = false, check_unoptimized = false, verbose = false, no_optimize = false, list_ops = false;
  double rtol = -1, atol = -1;
  app.add_option("input", in_path,
                 "the ONNX model (.onnx; external data files are read from its directory) or TFLite model (.tflite)");
  app.add_option("output", out_path, "the .mote file to write");
  app.add_option("--input-shape", shape_args, "NAME:DIMS, e.g. data:1x3x224x224: a static shape for an input (repeatable)");
  app.add_flag("--fp16", fp16, "store float weights as f16 (the runtime widens them at load)");
  CLI::Option* check_flag = app.add_flag(
      "--check", check,
      "run the result in Mote and the original in onnxruntime (ONNX) or LiteRT (TFLite) and compare the outputs");
  app.add_flag(
         "--check-unoptimized", check_unoptimized,
         "with --check: run onnxruntime with its graph optimisations off, each operator as ONNX defines it "
         "(its fused int8 kernels round a QDQ model's chains differently from the definition, which Mote follows)")
      ->needs(check_flag);
  app.add_option("--inputs", input_args, "NAME=FILE.npy: an input for --check (others are random; repeatable)");
  app.add_option("--dim", dim_args,
                 "SYMBOL=SIZE: the size --check gives a named dynamic dimension, e.g. H=480 (repeatable)");
  app.add_option("--rtol", rtol, "--check relative tolerance (default 1e-3, 1e-2 with --fp16)");
  app.add_option("--atol", atol, "--check absolute tolerance (default 1e-4, 1e-2 with --fp16)");
  std::string quantize, calibrate, calibration_method = "minmax";
  double percentile = 99.99;
  CLI::Option* quantize_option =
      app.add_option("--quantize", quantize,
                     "int8: post-training quantisation of the ops that have int8 kernels (Conv, Gemm, MatMul, "
                     "and the Add, Mul, Concat, average pools and activations between them)")
          ->check(CLI::IsMember({"int8"}));
  app.add_option("--calibrate", calibrate,
                 "DIR of .npy input samples for --quantize (DIR/<input>/*.npy for several inputs; at least " +
                     std::to_string(kMinCalibrationSamples) + "), or 'random' for a smoke test");
  app.add_option("--calibration-method", calibration_method,
                 "how activation ranges are chosen: minmax (default) or percentile")
      ->check(CLI::IsMember({"minmax", "percentile"}));
  app.add_option("--percentile", percentile, "the share of values the percentile method covers (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  int weight_bits = 8;
  app.add_option("--weight-bits", weight_bits,
                 "8 (default): weights in +-127; 7: in +-63, one bit less precise, which x86 CPUs without VNNI "
                 "(AVX2) multiply faster, exactly; depthwise layers keep 8")
      ->check(CLI::IsMember({7, 8}))
      ->needs(quantize_option);
  app.add_flag("--no-optimize", no_optimize, "skip constant folding, BatchNormalization folding and fusion");
  app.add_flag("--list-ops", list_ops, "list the ONNX op types and TFLite operators this build converts and exit");
  app.add_flag("-v,--verbose", verbose, "print every fold and fusion, and progress on any model");
  CLI11_PARSE(app, argc, argv);

  if (list_ops) {
    for (const OnnxOpEntry& e : onnx_op_table()) std::printf("%.*s\n", static_cast<int>(e.op_type.size()), e.op_type.data());
    for (const TfliteOpEntry& e : tflite_op_table()) {
      std::printf("tflite:%.*s\n", static_cast<int>(e.op_type.size()), e.op_type.data());
    }
    return 0;
  }
  if (in_path.empty() || out_path.empty()) {
    std::fprintf(stderr, "mote-convert: expected IN.onnx|IN.tflite OUT.mote (see --help)\n");
    return 2;
  }
  ConvertOptions options;
  for (const std::string& arg : shape_args) {
    auto kv = split_arg(arg, ':', "--input-shape");
    auto dims = kv.ok() ? parse_dims(kv->second) : Result<Shape>(kv.status());
    if (!dims.ok()) {
      std::fprintf(stderr, "mote-convert: %s\n", dims.status().message().c_str());
      return 2;
    }
    options.import.input_shapes[kv->first] = *dims;
  }
  CheckOptions check_options;
  for (const std::string& arg : input_args) {
    auto kv = split_arg(arg, '=', "--inputs");
    if (!kv.ok()) {
      std::fprintf(stderr, "mote-convert: %s\n", kv.status().message().c_str());
      return 2;
    }
    check_options.input_files[kv->first] = kv->second;
  }
  for (const std::string& arg : dim_args) {
    auto kv = split_arg(arg, '=', "--dim");
    auto dims = kv.ok() ? parse_dims(kv->second) : Result<Shape>(kv.status());
    if (!dims.ok() || dims->size() != 1) {
      std::string why = dims.ok() ? "--dim expects SYMBOL=SIZE, got '" + arg + "'" : dims.status().message();
      std::fprintf(stderr, "mote-convert: %s\n", why.c_str());
      return 2;
    }
    check_options.dim_sizes[kv->first] = (*dims)[0];
  }
  if (!quantize.empty() != !calibrate.empty()) {
    std::fprintf(stderr, "mote-convert: --quantize and --calibrate go together (see --help)\n");
    return 2;
  }
  if (!quantize.empty()) {
    QuantizeRequest q;
    q.calibrate = calibrate;
    q.method = calibration_method == "percentile" ? RangeMethod::kPercentile : RangeMethod::kMinMax;
    q.percentile = percentile;
    q.weight_bits = weight_bits;
    q.progress = true;
    options.quantize = q;
  }
  options.passes.fp16 = fp16;
  options.passes.optimize = !no_optimize;
  // Progress only where it helps: large models, or when asked.
  options.import.progress = [verbose](const char* stage, size_t done, size_t total) {
    if (verbose || total >= 1000) print_progress(stage, done, total);
  };

  if (ends_with(in_path, ".mote")) return requantize_mote(in_path, out_path, options);

  auto start = std::chrono::steady_clock::now();
  const bool tflite = is_tflite_file(in_path);
  auto result = tflite ? convert_tflite_file(in_path, options) : convert_onnx_file(in_path, options);
  if (!result.ok()) {
    std::fprintf(stderr, "mote-convert: %s\n", result.status().to_string().c_str());
    return 1;
  }
  if (Status st = save_file(out_path, result->mote); !st.ok()) {
    std::fprintf(stderr, "mote-convert: %s\n", st.to_string().c_str());
    return 1;
  }
  double total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  print_report(stdout, in_path, out_path, *result, verbose, total_ms);

  if (check) {
    check_options.reference = tflite ? Reference::kLiteRt : Reference::kOnnxRuntime;
    check_options.source_path = in_path;
    check_options.unoptimized = check_unoptimized;
    check_options.mote_path = out_path;
    check_options.source = result->source;
    check_options.rtol = rtol >= 0 ? rtol : fp16 ? 1e-2 : 1e-3;
    check_options.atol = atol >= 0 ? atol : fp16 ? 1e-2 : 1e-4;
    check_options.verbose = verbose;
    std::fflush(stdout);
    if (Status st = run_check(check_options, stdout); !st.ok()) {
      // The message names the step that failed (and carries its own code).
      std::fprintf(stderr, "mote-convert: %s\n", st.message().c_str());
      return 3;
    }
  }
  return 0;
}
