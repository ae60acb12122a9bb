// The decisions of choose_gpu_precision (mote/gpu.hpp), apart from the runs
// that feed them, so they can be tested on made-up measurements.
//
// Storing a tensor as f16 costs two kinds of error. Values past f16's range
// (65504) become infinities: the op making such a tensor and every GPU op
// reading it must stay f32, which the f32 run alone shows (out_of_range).
// Elsewhere each stored value is rounded (about 2^-12 of its size), which
// most ops pass on without growing; an op that grows its inputs' error (a
// subtraction cancelling large values, an exponential of large ones) makes
// the model's outputs drift. Keeping that op f32 alone would not help, as it
// would still read its inputs rounded: it and the producers of its float
// inputs go f32 together (amplifiers).
#pragma once

#include <string>
#include <vector>

namespace mote::gpu_precision {

constexpr double kHalfMax = 65504.0;
// The error a value stored as f16 carries, relative to the tensor's largest
// magnitude, at most (half an f16 ulp at the top of the range, rounded up).
constexpr double kHalfRounding = 1.0 / 2048;
// Below this ratio of output error to input error an op passes error on
// rather than growing it.
constexpr double kMinGrowth = 4.0;

// One float tensor of the graph, as the runs measured it.
struct TensorMeasure {
  double ref_max_abs = 0;  // largest magnitude in the f32 run
  // max |f16 run - f32 run| / max |f32 run|; infinite where the f16 run has
  // a non-finite value the f32 run does not. Graph inputs: kHalfRounding.
  double error = 0;
  bool measured = false;  // false: a weight, not a float, or not seen
};

// One op of the graph.
struct OpMeasure {
  int op_index = 0;
  bool on_gpu = false;               // runs on the GPU (only those have a precision)
  bool f16 = false;                  // ran with f16 storage in the measured run
  std::vector<int> inputs, outputs;  // tensor indices (-1: omitted)
  bool f16_math = false;             // f16 products as well in that run (gpu_f16_arithmetic)
};

struct Pick {
  int op_index = 0;
  std::string reason;
};

// GPU ops making or reading a tensor whose f32 values pass `limit`.
std::vector<Pick> out_of_range(const std::vector<OpMeasure>& ops, const std::vector<TensorMeasure>& tensors,
                               double limit = kHalfMax);

// How much `op` grew the error of its inputs: its outputs' error over the
// largest of its measured inputs' errors (at least kHalfRounding). Infinite
// when it made a non-finite value from finite inputs; 1 when its inputs
// already had one.
double growth(const OpMeasure& op, const std::vector<TensorMeasure>& tensors);

// The f16 GPU ops growing error by at least kMinGrowth and by at least half
// the largest growth, each with the f16 GPU ops making its float inputs.
std::vector<Pick> amplifiers(const std::vector<OpMeasure>& ops, const std::vector<TensorMeasure>& tensors);

}  // namespace mote::gpu_precision
