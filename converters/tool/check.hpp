// mote-convert --check: runs the converted model in Mote and the original in
// its own runtime (onnxruntime, or LiteRT's interpreter for TFLite, through
// converters/tool/reference_run.py and the pip python3) on the same inputs,
// and compares every output.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "mote/source_interface.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::convert {

// The runtime that runs the source model.
enum class Reference { kOnnxRuntime, kLiteRt };

struct CheckOptions {
  Reference reference = Reference::kOnnxRuntime;
  std::string source_path;  // the .onnx or .tflite file
  std::string mote_path;
  // Inputs given as .npy files; the rest are random (fixed seed).
  std::map<std::string, std::string> input_files;
  // The source model's inputs with their symbolic dimensions, and --dim
  // SYMBOL=SIZE: what sizes the dynamic dimensions of random inputs
  // (check_shapes.hpp).
  SourceInterface source;
  std::map<std::string, int64_t> dim_sizes;
  // An output passes when every element has |mote - ref| <= atol + rtol * |ref|.
  double rtol = 1e-3;
  double atol = 1e-4;
  bool verbose = false;
  // onnxruntime with its graph optimisations off (reference_run.py
  // --unoptimized): each operator as ONNX defines it.
  bool unoptimized = false;
};

// Prints one line per output: max|mote - ref|, that over max|ref|, and how
// many elements fail the element-wise tolerance. An error when an output is
// over tolerance, when an input cannot be sized, or when either side fails
// to run; the message says which side and carries that side's own message.
Status run_check(const CheckOptions& options, FILE* out);

}  // namespace mote::convert
