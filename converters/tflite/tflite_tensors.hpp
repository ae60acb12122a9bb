// TFLite tensors as Mote sees them: shapes, dtypes, constant data (from a
// buffer inside the FlatBuffer or past it), quantisation parameters, and the
// few tensor rewrites the importer does at conversion time (permuting a
// constant, dequantising one).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "converters/common/graph.hpp"
#include "converters/tflite/op_context.hpp"

namespace mote::convert {

Shape tensor_shape(const tfl::Tensor& tensor);
// The Mote dtype of a TFLite element type; nullopt for types Mote lacks
// (int16, strings, complex, int4...).
std::optional<DType> mote_dtype(tfl::TensorType type);
// tensor's dtype, F32 where Mote lacks it (the importer refuses such
// tensors before any mapper runs).
DType tensor_dtype(const tfl::Tensor& tensor);

// real = scale * (q - zero_point), one scale per tensor or per slice of `axis`.
struct QuantParams {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = 0;  // TFLite's quantized_dimension (NHWC)
};
// An integer tensor with scales.
bool is_quantized(const tfl::Tensor& tensor);
QuantParams quant_params(const tfl::Tensor& tensor);

// Whether tensor `t` has stored data (a weight), and the data. nullopt with
// `error` empty: not a constant; with `error` set: a constant whose buffer is
// malformed (the message names the tensor and the buffer).
bool has_constant_data(const TfliteImportState& state, int t);
std::optional<Tensor> constant_data(const TfliteImportState& state, int t, std::string& error);

// `t` with its axes permuted: result axis k is input axis perm[k].
Tensor permute(const Tensor& t, const std::vector<int64_t>& perm);

// Value `v` (holding a tensor of `stored` dtype quantised by `q`, per
// channel along `axis`) as f32: computed here for a constant when
// `fold_constant`, a DequantizeLinear op otherwise (quantised weights keep
// theirs, so that fold_qdq can give the Conv to the int8 kernel).
int dequantize(Graph& graph, int v, const QuantParams& q, int64_t axis, DType stored, const std::string& name,
               const std::string& op_name, bool fold_constant = true);
// Writes QuantizeLinear(from) into `to` (of dtype `dtype`).
void quantize(Graph& graph, int from, int to, const QuantParams& q, int64_t axis, DType dtype,
              const std::string& op_name);

}  // namespace mote::convert
