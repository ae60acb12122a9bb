#include "converters/tflite/importer.hpp"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>

#include "converters/tflite/op_table.hpp"
#include "converters/tflite/tflite_tensors.hpp"
#include "runtime/core/field_alignment.hpp"

namespace mote::convert {
namespace {

// The operator's builtin name ("CONV_2D"), "CUSTOM:<code>" for a custom one,
// or "BUILTIN_<n>" for a number this schema does not name.
std::string operator_name(const tfl::Model& model, const tfl::Operator& op) {
  const auto* codes = model.operator_codes();
  if (!codes || op.opcode_index() >= codes->size()) return "";
  const tfl::OperatorCode* code = codes->Get(op.opcode_index());
  const int builtin = std::max<int>(code->deprecated_builtin_code(), static_cast<int>(code->builtin_code()));
  if (builtin == static_cast<int>(tfl::BuiltinOperator::CUSTOM)) {
    return "CUSTOM:" + (code->custom_code() ? code->custom_code()->str() : std::string("?"));
  }
  const char* name = tfl::EnumNameBuiltinOperator(static_cast<tfl::BuiltinOperator>(builtin));
  return name && *name ? name : "BUILTIN_" + std::to_string(builtin);
}

// A declared shape Mote can hold: dimensions >= 0 (TFLite marks dynamic
// ones in shape_signature, not here) and at most 2^40 elements.
bool plausible_shape(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 40) / d)) return false;
    n *= d;
  }
  return true;
}

// Quantisation parameters the converter can apply: one scale per tensor, or
// one per slice along quantized_dimension, which must be an axis of the
// tensor whose length is the number of scales.
bool plausible_quantization(const tfl::Tensor& tensor, const Shape& shape) {
  if (!is_quantized(tensor)) return true;
  const QuantParams q = quant_params(tensor);
  if (q.scales.size() == 1) return true;
  return q.axis >= 0 && q.axis < static_cast<int64_t>(shape.size()) &&
         shape[static_cast<size_t>(q.axis)] == static_cast<int64_t>(q.scales.size());
}

bool valid_index(const flatbuffers::Vector<int32_t>* list, uint32_t tensors, bool allow_omitted) {
  if (!list) return true;
  for (int32_t t : *list) {
    if (t < (allow_omitted ? -1 : 0) || t >= static_cast<int64_t>(tensors)) return false;
  }
  return true;
}

}  // namespace

bool looks_like_tflite(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 8 && flatbuffers::BufferHasIdentifier(bytes.data(), tfl::ModelIdentifier());
}

Result<TfliteImport> import_tflite(const std::vector<uint8_t>& bytes, const std::string& file,
                                   const ImportOptions& options) {
  if (!looks_like_tflite(bytes)) return invalid_model(file + ": not a TFLite file (no \"TFL3\" identifier)");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), /*max_depth=*/64, /*max_tables=*/10'000'000);
  if (!tfl::VerifyModelBuffer(verifier)) {
    return invalid_model(file + ": the TFLite FlatBuffer is damaged (the verifier refused it)");
  }
  if (Status aligned = verify_field_alignment(bytes.data(), tfl::ModelTypeTable()); !aligned.ok()) {
    return invalid_model(file + ": the TFLite FlatBuffer is damaged: " + aligned.message());
  }
  const tfl::Model* model = tfl::GetModel(bytes.data());
  if (model->version() != 3) {
    return unsupported(file + ": TFLite schema version " + std::to_string(model->version()) +
                       "; mote-convert reads version 3");
  }
  if (!model->subgraphs() || model->subgraphs()->size() == 0) return invalid_model(file + ": the model has no subgraph");
  const tfl::SubGraph* sg = model->subgraphs()->Get(0);
  const uint32_t tensor_count = sg->tensors() ? sg->tensors()->size() : 0;
  const uint32_t op_count = sg->operators() ? sg->operators()->size() : 0;
  if (!valid_index(sg->inputs(), tensor_count, false) || !valid_index(sg->outputs(), tensor_count, false)) {
    return invalid_model(file + ": a graph input or output names a tensor that does not exist");
  }

  TfliteImport result;
  TfliteImportState state;
  state.model = model;
  state.subgraph = sg;
  state.file_data = bytes.data();
  state.file_size = bytes.size();
  state.file = file;
  state.is_graph_output.assign(tensor_count, false);
  if (sg->outputs()) {
    for (int32_t t : *sg->outputs()) state.is_graph_output[static_cast<size_t>(t)] = true;
  }

  for (uint32_t t = 0; t < tensor_count; ++t) {
    const Shape shape = tensor_shape(*sg->tensors()->Get(t));
    if (!plausible_shape(shape)) {
      return invalid_model(file + ": tensor " + std::to_string(t) + " '" + state.tensor_name(static_cast<int>(t)) +
                           "' has shape " + shape_to_string(shape) + " (negative or over 2^40 elements)");
    }
    const tfl::Tensor& tensor = *sg->tensors()->Get(t);
    if (!plausible_quantization(tensor, shape)) {
      const QuantParams q = quant_params(tensor);
      return invalid_model(file + ": tensor " + std::to_string(t) + " '" + state.tensor_name(static_cast<int>(t)) +
                           "' of shape " + shape_to_string(shape) + " has " + std::to_string(q.scales.size()) +
                           " quantisation scales along dimension " + std::to_string(q.axis) +
                           "; a per-channel tensor needs one scale per slice of that dimension");
    }
  }

  // Every operator first: the unsupported ones are reported together.
  std::map<std::string, int> missing;
  for (uint32_t i = 0; i < op_count; ++i) {
    const tfl::Operator* op = sg->operators()->Get(i);
    std::string name = operator_name(*model, *op);
    if (name.empty()) return invalid_model(file + ": operator " + std::to_string(i) + " has no operator code");
    if (!valid_index(op->inputs(), tensor_count, true) || !valid_index(op->outputs(), tensor_count, false)) {
      return invalid_model(file + ": operator " + std::to_string(i) + " (" + name + ") names a tensor that does not exist");
    }
    ++result.op_histogram[name];
    if (!find_tflite_mapper(name)) ++missing[name];
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& [name, n] : missing) list += (list.empty() ? "" : ", ") + name + " (" + std::to_string(n) + ")";
    return unsupported(file + ": no mapper for these TFLite operators: " + list +
                       " (mote-convert --list-ops lists what converts)");
  }

  std::vector<std::string> names;
  for (uint32_t t = 0; t < tensor_count; ++t) names.push_back(state.tensor_name(static_cast<int>(t)));
  state.graph.reserve_source_names(names);
  state.graph.producer = "mote-convert (TFLite)";
  state.graph.metadata.emplace_back("source_format", "tflite");

  if (sg->inputs()) {
    for (int32_t t : *sg->inputs()) {
      const tfl::Tensor& tensor = state.tensor(t);
      const std::string name = state.tensor_name(t);
      auto dtype = mote_dtype(tensor.type());
      if (!dtype) {
        return unsupported(file + ": input '" + name + "' has TFLite type " +
                           tfl::EnumNameTensorType(tensor.type()) + ", which Mote does not support");
      }
      Shape shape = tensor_shape(tensor);
      SourceInput src;
      src.name = name;
      src.has_shape = true;
      for (size_t k = 0; k < shape.size(); ++k) {
        SourceDim d;
        const auto* sig = tensor.shape_signature();
        d.value = sig && sig->size() == shape.size() && sig->Get(static_cast<uint32_t>(k)) < 0 ? -1 : shape[k];
        src.dims.push_back(d);
      }
      result.source.inputs.push_back(src);
      if (auto it = options.input_shapes.find(name); it != options.input_shapes.end()) shape = it->second;
      int v = state.graph.add_input(name, *dtype, shape);
      state.held[{t, Layout::kNhwc, false}] = v;
    }
  }

  for (uint32_t i = 0; i < op_count; ++i) {
    const tfl::Operator* op = sg->operators()->Get(i);
    std::string name = operator_name(*model, *op);
    TfliteOpContext ctx(state, *op, static_cast<int>(i), name);
    Status st = (*find_tflite_mapper(name))(ctx);
    if (st.ok()) ctx.finish();
    if (!st.ok() || !ctx.status().ok()) return st.ok() ? ctx.status() : st;
    if (options.progress) options.progress("operators", i + 1, op_count);
  }

  // Graph outputs in TFLite's own order and names.
  if (sg->outputs()) {
    for (int32_t t : *sg->outputs()) {
      const std::string name = state.tensor_name(t);
      if (std::find(result.source.outputs.begin(), result.source.outputs.end(), name) != result.source.outputs.end()) {
        return invalid_model(file + ": graph output '" + name + "' is listed twice (or two outputs share a name)");
      }
      result.source.outputs.push_back(name);
      auto nhwc = state.held.find({t, Layout::kNhwc, false});
      int v = nhwc != state.held.end() ? nhwc->second : -1;
      if (v < 0) {
        auto nchw = state.held.find({t, Layout::kNchw, false});
        if (nchw == state.held.end()) return invalid_model(file + ": output '" + name + "' is never written");
        v = state.graph.add_value(name);
        fb::TransposeAttrsT a;
        a.perm = {0, 2, 3, 1};
        set_attrs(state.graph.add_op(fb::OpType::Transpose, name + "/to_nhwc", {nchw->second}, {v}), std::move(a));
      }
      state.graph.outputs.push_back(v);
    }
  }
  state.graph.metadata.emplace_back(kSourceInputsKey, encode_source_inputs(result.source.inputs));
  state.graph.metadata.emplace_back(kSourceOutputsKey, encode_source_outputs(result.source.outputs));

  const std::string description = model->description() ? model->description()->str() : "";
  result.summary = "TFLite schema " + std::to_string(model->version()) +
                   (description.empty() ? "" : ", \"" + description + "\"") + "; " + std::to_string(op_count) +
                   " operators, " + std::to_string(tensor_count) + " tensors, " +
                   std::to_string(model->buffers() ? model->buffers()->size() : 0) + " buffers";
  result.graph = std::move(state.graph);
  return result;
}

}  // namespace mote::convert
