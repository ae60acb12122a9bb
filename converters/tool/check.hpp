// mote-convert --check: runs the converted model in Mote and the original in
// onnxruntime (through converters/onnx/onnx_reference.py and the pip
// python3) on the same inputs, and compares every output.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::convert {

struct CheckOptions {
  std::string onnx_path;
  std::string mote_path;
  // Inputs given as .npy files; the rest are random (fixed seed).
  std::map<std::string, std::string> input_files;
  // Shapes for dynamic dimensions of random inputs (others default to 1).
  std::map<std::string, Shape> input_shapes;
  // An output passes when every element has |mote - ort| <= atol + rtol * |ort|.
  double rtol = 1e-3;
  double atol = 1e-4;
  bool verbose = false;
};

// Prints one line per output (max abs and max rel error); an error when an
// output is over tolerance or either side fails to run.
Status run_check(const CheckOptions& options, FILE* out);

}  // namespace mote::convert
