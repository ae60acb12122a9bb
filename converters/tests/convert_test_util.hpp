// Converts an OnnxBuilder model in memory and runs it in a Session, for the
// converter's tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "converters/onnx/onnx_converter.hpp"
#include "converters/tests/onnx_builder.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"

namespace mote::convert::test {

struct Converted {
  ConvertResult result;
  Tensor file;  // 64-byte aligned copy of the .mote bytes
  std::shared_ptr<const Model> model;

  int count(fb::OpType type) const;
  // A counter of the pass log, 0 when absent.
  int64_t counter(const std::string& pass, const std::string& what) const;
  // Runs on the reference backend (or another).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Backend backend = Backend::kReference) const;
  // The dtype each op of `type` reads as its first input, in op order
  // (whether a MaxPool runs on 8-bit codes).
  std::vector<DType> input_dtypes(fb::OpType type) const;
};

struct Options {
  bool optimize = true;
  bool fp16 = false;
  std::map<std::string, Shape> input_shapes;
  std::optional<QuantizeRequest> quantize;
};

// Fails the test (and returns an empty Converted) on errors.
Converted convert(OnnxBuilder& b, const Options& options = {});
Status try_convert(OnnxBuilder& b, const Options& options = {});

void expect_near(const Tensor& a, const Tensor& b, double tol);

// Converts `b` without the graph passes and with `optimized`, runs both and
// expects the same outputs: the unoptimised model on the reference backend,
// the optimised one on `backend`.
void expect_same_outputs(OnnxBuilder& b, const std::vector<Tensor>& inputs, double tol = 1e-4,
                         const Options& optimized = {}, Backend backend = Backend::kReference);

}  // namespace mote::convert::test
