// Post-training int8 quantisation (mote-convert --quantize int8): runs the
// float graph on calibration inputs to learn each activation's range, then
// turns every Conv it can into a QLinearConv, and every Gemm y = x W^T + c
// or x W + c and MatMul x W (W constant) into a QLinearMatMul (Gemm's bias
// as its int32 bias; classifier heads, a transformer's linear layers):
//   - weights per output channel, symmetric int8 (zero point 0, +-127, or
//     +-63 with weight_bits 7: x86 CPUs without VNNI multiply those as byte
//     pairs, exactly, about twice as fast as 8-bit ones; see qgemm.hpp);
//   - activations per tensor, asymmetric uint8, the range from the
//     calibration data (min/max, or a percentile of |x| to cut outliers);
//   - the bias int32 in units of x_scale * w_scale.
// A QuantizeLinear goes before a quantised op only where its input is float,
// and a DequantizeLinear after it only where a float op or the graph output
// reads it: consecutive quantised ops pass uint8 directly. A Conv with a
// fused residual input (and a Relu, a Clip or no activation) becomes a
// QLinearConv with a quantised residual (its inputs 9-11). A MaxPool,
// Reshape or Flatten whose input is already uint8 runs on it, keeping its
// scale and zero point (a max of codes is the code of the max; a reshape
// moves no value), and so does a nearest or linear Resize. An Add, Mul, Concat,
// AveragePool or GlobalAveragePool with an input from an int8 op becomes
// QLinearAdd, QLinearMul, QLinearConcat or a QLinear pool (its float inputs
// quantised once). Ops without an int8 kernel stay float. Afterwards both
// graphs run on the calibration data and the report gives each quantised
// output's error against the float one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "converters/common/graph.hpp"
#include "converters/common/passes.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::convert {

// Fewer samples than this give ranges that depend on which images were
// picked; mote-convert refuses them (random inputs are exempt: smoke tests).
inline constexpr size_t kMinCalibrationSamples = 16;

enum class RangeMethod { kMinMax, kPercentile };

struct QuantizeOptions {
  // One map of graph inputs per sample.
  std::vector<std::map<std::string, Tensor>> samples;
  RangeMethod method = RangeMethod::kMinMax;
  // kPercentile: the range covers this percentage of the values seen.
  double percentile = 99.99;
  // Bits of the weights' range, sign included: 8 (+-127) or 7 (+-63).
  int weight_bits = 8;
  // Progress lines ("calibrating 12/32") on stderr.
  bool progress = false;
};

struct QuantizedOutput {
  std::string op;      // "Conv 'conv1'"
  std::string tensor;  // the float tensor it stands for
  double range = 0;    // max - min seen in calibration
  double max_abs_error = 0;
  double rms_error = 0;
};

struct GraphOutputError {
  std::string name;
  double max_abs_error = 0;
  double max_abs_float = 0;
  // Samples whose arg-max over the last axis agrees (classifier outputs).
  int64_t argmax_agree = 0, samples = 0;
};

struct QuantizeReport {
  std::vector<QuantizedOutput> quantized;
  // Ops left in float, by reason ("Conv: residual input": 8).
  std::map<std::string, int64_t> kept_float;
  std::vector<GraphOutputError> outputs;
  double calibrate_ms = 0, measure_ms = 0;
};

Result<QuantizeReport> quantize_int8(Graph& graph, const QuantizeOptions& options, PassLog& log);

// --quantize int8 as the command line gives it: where the calibration inputs
// come from (a folder, or "random"; load_calibration) and how ranges are
// chosen.
struct QuantizeRequest {
  std::string calibrate;
  RangeMethod method = RangeMethod::kMinMax;
  double percentile = 99.99;
  int weight_bits = 8;
  bool progress = false;
};

// load_calibration, then quantize_int8: what mote-convert does for an ONNX
// or a .mote input alike.
Result<QuantizeReport> quantize_graph(Graph& graph, const QuantizeRequest& request, PassLog& log);

// Calibration samples for `graph`'s inputs from `dir`: a one-input graph
// takes every DIR/*.npy (sorted by name) as one sample; a graph with more
// inputs takes DIR/<input name>/*.npy, the same count for each. The word
// "random" instead of a folder gives kMinCalibrationSamples uniform [-1, 1)
// inputs of the inputs' static shapes (a smoke test: ranges of random data
// say little about real data). Errors name the folder, file and input.
Result<std::vector<std::map<std::string, Tensor>>> load_calibration(const Graph& graph, const std::string& dir);

}  // namespace mote::convert
