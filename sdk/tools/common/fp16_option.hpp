// The --fp16 option of mote-run and mote-bench: off, on (f16 storage of
// every float tensor on the GPU) or auto (choose_gpu_precision picks the
// ops that stay f32 by measuring on the tool's inputs); --fp16-arithmetic
// adds f16 products (SessionOptions::gpu_f16_arithmetic).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "mote/model.hpp"
#include "mote/session.hpp"

namespace mote::tools {

struct Fp16Option {
  std::string mode = "off";  // "off", "on" or "auto"
  double tolerance = 1e-2;   // auto: largest relative error of an output
  bool arithmetic = false;   // on or auto: f16 products as well
};

// Adds --fp16 [on|off|auto] (alone: on), --fp16-tolerance and --fp16-arithmetic.
void add_fp16_option(CLI::App& app, Fp16Option& option);

// Sets options.gpu_precision and gpu_f16_arithmetic (and for auto
// options.gpu_f32_ops) from the option. Auto runs choose_gpu_precision on `inputs`, with its progress on
// stderr and its report on stdout; when no choice meets the tolerance, the
// session runs in f32.
Status apply_fp16_option(const Fp16Option& option, const std::shared_ptr<const Model>& model,
                         const std::vector<Tensor>& inputs, SessionOptions& options);

// "", ", f16 storage" or ", f16 storage with N ops f32", and ", f16
// arithmetic" where asked for, for the tools' summaries.
std::string describe_fp16(const SessionOptions& options);

}  // namespace mote::tools
