#include "converters/onnx/importer.hpp"

#include <filesystem>
#include <unordered_set>

#include "converters/common/dtype_rules.hpp"
#include "converters/onnx/onnx_file.hpp"
#include "converters/onnx/op_table.hpp"
#include "converters/onnx/tensor_proto.hpp"
#include "converters/onnx/unsupported_list.hpp"
#include "onnx.pb.h"
#include "runtime/core/registry.hpp"

namespace mote::convert {
namespace {

// Calls `progress` at every 10% step of `total`.
class ProgressTicker {
 public:
  ProgressTicker(const ImportOptions& options, const char* stage, size_t total)
      : options_(options), stage_(stage), total_(total) {}
  void tick(size_t done) {
    if (!options_.progress || total_ == 0) return;
    size_t decile = done * 10 / total_;
    if (decile > last_) {
      last_ = decile;
      options_.progress(stage_, done, total_);
    }
  }

 private:
  const ImportOptions& options_;
  const char* stage_;
  size_t total_;
  size_t last_ = 0;
};

// The declared type of a graph input or output: dtype and shape (-1 for a
// symbolic or missing dimension), or no shape at all.
struct DeclaredType {
  int32_t elem_type = 0;
  bool has_shape = false;
  Shape shape;
};

DeclaredType declared_type(const onnx::ValueInfoProto& info) {
  DeclaredType d;
  if (!info.type().has_tensor_type()) return d;
  const auto& tt = info.type().tensor_type();
  d.elem_type = tt.elem_type();
  if (tt.has_shape()) {
    d.has_shape = true;
    for (const auto& dim : tt.shape().dim()) d.shape.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
  }
  return d;
}

// Imports one graph: the model's (run), or a control-flow body's (read_body).
class Importer {
 public:
  Importer(const onnx::ModelProto* model, const ImportOptions& options, ImportState state)
      : model_(model), options_(options), state_(std::move(state)) {}

  Result<OnnxImport> run() {
    MOTE_RETURN_IF_ERROR(read_opset());
    const onnx::GraphProto& g = model_->graph();
    result_.ir_version = model_->ir_version();
    result_.opset = state_.opset;
    result_.producer = model_->producer_name() + (model_->producer_version().empty() ? "" : " " + model_->producer_version());
    result_.node_count = static_cast<size_t>(g.node_size());
    result_.initializer_count = static_cast<size_t>(g.initializer_size());
    state_.graph.producer = "mote-convert (from ONNX";
    state_.graph.producer += result_.producer.empty() ? ")" : ", " + result_.producer + ")";
    state_.graph.metadata.emplace_back("source_format", "onnx");
    state_.graph.metadata.emplace_back("onnx_opset", std::to_string(state_.opset));
    for (const auto& p : model_->metadata_props()) state_.graph.metadata.emplace_back("onnx." + p.key(), p.value());

    if (g.sparse_initializer_size() > 0) {
      return unsupported(state_.file + ": sparse initializers are not supported");
    }
    state_.graph.reserve_source_names(source_tensor_names(g));
    MOTE_RETURN_IF_ERROR(read_initializers(g));
    MOTE_RETURN_IF_ERROR(read_inputs(g));
    MOTE_RETURN_IF_ERROR(read_nodes(g));
    MOTE_RETURN_IF_ERROR(read_outputs(g));
    for (const auto& [name, shape] : options_.input_shapes) {
      if (!used_shapes_.count(name)) {
        return not_found(state_.file + ": --input-shape names '" + name + "', which is not a graph input");
      }
    }
    record_source_names(g);
    result_.graph = std::move(state_.graph);
    return std::move(result_);
  }

  // A body: its inputs may leave their shapes (and, in old exports, their
  // types) to the enclosing op; `formal_dtypes` fills missing types.
  Result<ImportedBody> read_body(const onnx::GraphProto& g, const std::vector<std::optional<DType>>& formal_dtypes) {
    if (g.sparse_initializer_size() > 0) return unsupported("sparse initializers are not supported");
    body_formal_dtypes_ = &formal_dtypes;
    state_.graph.reserve_source_names(source_tensor_names(g));
    MOTE_RETURN_IF_ERROR(read_initializers(g));
    MOTE_RETURN_IF_ERROR(read_inputs(g));
    const size_t formal = state_.graph.inputs.size();
    MOTE_RETURN_IF_ERROR(read_nodes(g));
    MOTE_RETURN_IF_ERROR(read_outputs(g));
    ImportedBody body;
    body.formal_inputs = formal;
    body.captures = state_.captures;
    for (int v : state_.graph.outputs) {
      const Value& value = state_.graph.values[static_cast<size_t>(v)];
      body.output_dtypes.push_back(value.dtype_known ? std::optional<DType>(value.dtype) : std::nullopt);
    }
    ImportState& parent = *state_.parent;
    parent.graph.subgraphs.push_back(std::make_unique<Graph>(std::move(state_.graph)));
    body.subgraph = static_cast<int>(parent.graph.subgraphs.size()) - 1;
    return body;
  }

 private:
  Status read_opset() {
    bool found = false;
    for (const auto& id : model_->opset_import()) {
      if (id.domain().empty() || id.domain() == "ai.onnx") {
        state_.opset = static_cast<int>(id.version());
        found = true;
      }
    }
    // IR version 1 and 2 files predate opset_import and mean opset 1.
    if (!found && model_->ir_version() < 3) {
      state_.opset = 1;
      found = true;
    }
    if (!found) return invalid_model(state_.file + ": no opset_import for the default ONNX domain");
    if (state_.opset < kMinOnnxOpset || state_.opset > kMaxOnnxOpset) {
      return unsupported(state_.file + ": ONNX opset " + std::to_string(state_.opset) + " (mote-convert reads " +
                         std::to_string(kMinOnnxOpset) + " to " + std::to_string(kMaxOnnxOpset) + ")");
    }
    return {};
  }

  // Every tensor name the model uses, so helper values never take one.
  static std::vector<std::string> source_tensor_names(const onnx::GraphProto& g) {
    std::vector<std::string> names;
    for (const auto& t : g.initializer()) names.push_back(t.name());
    for (const auto& info : g.input()) names.push_back(info.name());
    for (const auto& info : g.output()) names.push_back(info.name());
    for (const auto& node : g.node()) names.insert(names.end(), node.output().begin(), node.output().end());
    return names;
  }

  // The source's graph inputs (with declared dimensions, symbolic ones by
  // name) and outputs, for the check and for mote-info
  // (mote/source_interface.hpp).
  void record_source_names(const onnx::GraphProto& g) {
    for (const auto& info : g.input()) {
      if (state_.graph.is_input(state_.by_name.at(info.name()))) {
        result_.source.inputs.push_back(source_input(info));
      }
    }
    for (const auto& info : g.output()) result_.source.outputs.push_back(info.name());
    state_.graph.metadata.emplace_back(kSourceInputsKey, encode_source_inputs(result_.source.inputs));
    state_.graph.metadata.emplace_back(kSourceOutputsKey, encode_source_outputs(result_.source.outputs));
  }

  static SourceInput source_input(const onnx::ValueInfoProto& info) {
    SourceInput in;
    in.name = info.name();
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return in;
    in.has_shape = true;
    for (const auto& dim : info.type().tensor_type().shape().dim()) {
      SourceDim d;
      if (dim.has_dim_value() && dim.dim_value() >= 0) d.value = dim.dim_value();
      if (dim.has_dim_param()) d.symbol = dim.dim_param();
      d.denotation = dim.denotation();
      in.dims.push_back(std::move(d));
    }
    return in;
  }

  Status define(const std::string& name, int value, const std::string& what) {
    if (name.empty()) return invalid_model(state_.file + ": " + what + " has an empty name");
    if (!state_.by_name.emplace(name, value).second) {
      return invalid_model(state_.file + ": " + what + " '" + name + "' is defined twice");
    }
    return {};
  }

  Status read_initializers(const onnx::GraphProto& g) {
    ProgressTicker ticker(options_, "initializers", static_cast<size_t>(g.initializer_size()));
    for (int i = 0; i < g.initializer_size(); ++i) {
      const onnx::TensorProto& t = g.initializer(i);
      auto data = tensor_from_proto(t, state_.model_dir, "initializer '" + t.name() + "'");
      if (!data.ok()) return data.status().with_context(state_.file);
      int v = state_.graph.add_constant(t.name(), std::move(data).value());
      MOTE_RETURN_IF_ERROR(define(t.name(), v, "initializer"));
      ticker.tick(static_cast<size_t>(i) + 1);
    }
    return {};
  }

  Status read_inputs(const onnx::GraphProto& g) {
    for (const auto& info : g.input()) {
      // Before IR version 4 every initializer is also listed as an input;
      // since then, an input with an initializer is one with a default
      // value. Either way the converted model uses the value.
      if (state_.by_name.count(info.name())) continue;
      DeclaredType d = declared_type(info);
      std::string what = state_.file + ": graph input '" + info.name() + "'";
      if (body_formal_dtypes_) {
        MOTE_RETURN_IF_ERROR(read_body_input(info, d));
        continue;
      }
      if (!info.type().has_tensor_type())
        return unsupported(what + " is not a tensor (sequences, maps and optionals are not supported)");
      auto dtype = dtype_from_onnx(d.elem_type);
      if (!dtype.ok()) return unsupported(what + ": " + dtype.status().message());
      std::optional<Shape> shape;
      if (d.has_shape) shape = d.shape;
      auto given = options_.input_shapes.find(info.name());
      if (given != options_.input_shapes.end()) {
        if (shape && shape->size() != given->second.size()) {
          return invalid_argument(what + " has rank " + std::to_string(shape->size()) + " (" + shape_to_string(*shape) +
                                  "), --input-shape gives " + shape_to_string(given->second));
        }
        for (size_t k = 0; shape && k < shape->size(); ++k) {
          if ((*shape)[k] >= 0 && (*shape)[k] != given->second[k]) {
            return invalid_argument(what + " is declared " + shape_to_string(*shape) + ", --input-shape gives " +
                                    shape_to_string(given->second));
          }
        }
        shape = given->second;
        used_shapes_.insert(info.name());
      }
      if (!shape) {
        return invalid_argument(what + " has no declared shape; give one with --input-shape " + info.name() + ":DIMS");
      }
      int v = state_.graph.add_input(info.name(), *dtype, shape);
      MOTE_RETURN_IF_ERROR(define(info.name(), v, "graph input"));
    }
    return {};
  }

  // A body input: its shape is the enclosing op's business at run time; a
  // missing type comes from the op's operand (body_formal_dtypes_).
  Status read_body_input(const onnx::ValueInfoProto& info, const DeclaredType& d) {
    const std::string what = "body input '" + info.name() + "'";
    const size_t k = state_.graph.inputs.size();
    DType dtype = DType::F32;
    bool typed = false;
    if (info.type().has_tensor_type() && d.elem_type) {
      auto declared = dtype_from_onnx(d.elem_type);
      if (!declared.ok()) return unsupported(what + ": " + declared.status().message());
      dtype = *declared;
      typed = true;
    } else if (info.type().value_case() != onnx::TypeProto::VALUE_NOT_SET && !info.type().has_tensor_type()) {
      return unsupported(what + " is not a tensor (sequences, maps and optionals are not supported)");
    } else if (k < body_formal_dtypes_->size() && (*body_formal_dtypes_)[k]) {
      dtype = *(*body_formal_dtypes_)[k];
      typed = true;
    }
    if (!typed) return unsupported(what + " has no declared type");
    std::optional<Shape> shape;
    if (d.has_shape) shape = d.shape;
    int v = state_.graph.add_input(info.name(), dtype, shape);
    return define(info.name(), v, "body input");
  }

  Status read_nodes(const onnx::GraphProto& g) {
    ProgressTicker ticker(options_, "nodes", static_cast<size_t>(g.node_size()));
    UnsupportedList unsupported_nodes;
    for (int n = 0; n < g.node_size(); ++n) {
      const onnx::NodeProto& node = g.node(n);
      ++result_.op_histogram[node.op_type()];
      std::string name = node_name(node, n);
      std::string label = node.op_type() + " '" + name + "' (opset " + std::to_string(state_.opset) + ")";

      for (const std::string& in : node.input()) {
        // Inside a body, a name from an enclosing scope becomes a capture.
        if (!in.empty() && state_.resolve(in) < 0) {
          return invalid_model(state_.file + ": node " + label + ": input '" + in +
                               "' is not a graph input, an initializer or an output of an earlier node");
        }
      }
      for (const std::string& out : node.output()) {
        if (!out.empty() && state_.by_name.count(out)) {
          return invalid_model(state_.file + ": node " + label + ": output '" + out + "' is already defined");
        }
      }
      // Nodes inside If/Loop/Scan bodies no mapper takes: listed now, so a
      // user learns about all of them in one run rather than one per
      // attempt; the node itself is then not mapped (its body cannot be).
      const size_t gaps_before = unsupported_nodes.size();
      collect_nested_gaps(node, node.op_type() + " '" + name + "'", unsupported_nodes);
      const bool body_gaps = unsupported_nodes.size() > gaps_before;
      Status st = body_gaps ? unsupported("") : mapper_gap(node);
      if (st.ok()) {
        size_t first_op = state_.graph.ops.size();
        NodeContext ctx(state_, node, name);
        st = (*find_onnx_mapper(mapper_key(node)))(ctx);
        if (st.ok()) st = ctx.status();
        if (st.ok()) st = check_emitted(first_op, ctx);
      }
      if (!st.ok()) {
        if (st.code() != StatusCode::kUnsupported) return st;
        // Keep going so the user sees every unsupported node at once; the
        // node's outputs get placeholder values so later nodes resolve.
        // Mapper messages start with the node's location; the list has its own.
        std::string reason = st.message();
        std::string prefix = state_.file + ": node '" + name + "' (" + node.op_type() + ", opset " +
                             std::to_string(state_.opset) + "): ";
        if (reason.rfind(prefix, 0) == 0) reason = reason.substr(prefix.size());
        if (!body_gaps) unsupported_nodes.add(node.op_type(), label, reason);
        for (const std::string& out : node.output()) {
          if (!out.empty() && !state_.by_name.count(out)) state_.by_name[out] = state_.graph.add_value(out);
        }
      }
      ticker.tick(static_cast<size_t>(n) + 1);
    }
    if (!unsupported_nodes.empty()) return unsupported(unsupported_nodes.message(state_.file));
    return {};
  }

  static std::string node_name(const onnx::NodeProto& node, int index) {
    return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  }

  // The op table's key for `node`: its op type, or for onnxruntime's
  // com.microsoft operators "com_microsoft_" and the op type
  // (ops_microsoft.cpp); empty for another domain.
  static std::string mapper_key(const onnx::NodeProto& node) {
    if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
    if (node.domain() == "com.microsoft") return "com_microsoft_" + node.op_type();
    return "";
  }

  // Why no mapper can take `node`, or OK when one is registered.
  static Status mapper_gap(const onnx::NodeProto& node) {
    const std::string key = mapper_key(node);
    if (key.empty()) return unsupported("domain '" + node.domain() + "' is not supported");
    if (!find_onnx_mapper(key)) {
      return unsupported(node.domain() == "com.microsoft"
                             ? "no mapper for this com.microsoft op type (Mote reads onnxruntime's quantised ones)"
                             : "no mapper for this op type");
    }
    return {};
  }

  // Walks the subgraphs of `node` (If branches, Loop and Scan bodies) and
  // lists every node in them that no mapper takes, with its path:
  // "If 'x' / then_branch / LSTM 'y'".
  static void collect_nested_gaps(const onnx::NodeProto& node, const std::string& path, UnsupportedList& list) {
    for (const auto& attr : node.attribute()) {
      std::vector<const onnx::GraphProto*> bodies;
      if (attr.has_g()) bodies.push_back(&attr.g());
      for (const auto& sub : attr.graphs()) bodies.push_back(&sub);
      for (size_t b = 0; b < bodies.size(); ++b) {
        std::string where = path + " / " + attr.name() + (bodies.size() > 1 ? "[" + std::to_string(b) + "]" : "");
        for (int n = 0; n < bodies[b]->node_size(); ++n) {
          const onnx::NodeProto& inner = bodies[b]->node(n);
          std::string label = where + " / " + inner.op_type() + " '" + node_name(inner, n) + "'";
          if (Status gap = mapper_gap(inner); !gap.ok()) list.add(inner.op_type(), label, gap.message());
          collect_nested_gaps(inner, label, list);
        }
      }
    }
  }

  // After a mapper: fills dtypes of what it emitted, checks the op arity the
  // runtime accepts, and checks every named output of the node got a value
  // that some op writes.
  Status check_emitted(size_t first_op, NodeContext& ctx) {
    auto& ops = state_.graph.ops;
    for (size_t i = first_op; i < ops.size(); ++i) {
      const fb::OpT& op = *ops[i];
      apply_dtype_rules(state_.graph, op);
      if (const OpDef* def = find_op_def(op.type)) {
        int n_in = static_cast<int>(op.inputs.size()), n_out = static_cast<int>(op.outputs.size());
        if (n_out > def->max_outputs) {
          return ctx.unsupported("Mote's " + std::string(op_type_name(op.type)) + " has at most " +
                                 std::to_string(def->max_outputs) + " outputs, the node asks for " +
                                 std::to_string(n_out));
        }
        if (n_in < def->min_inputs || n_in > def->max_inputs) {
          return ctx.invalid("has " + std::to_string(n_in) + " inputs; Mote's " + op_type_name(op.type) + " takes " +
                             std::to_string(def->min_inputs) + " to " + std::to_string(def->max_inputs));
        }
      }
    }
    for (size_t i = 0; i < ctx.output_count(); ++i) {
      if (!ctx.has_output(i)) continue;
      auto it = state_.by_name.find(ctx.node().output(static_cast<int>(i)));
      bool written = it != state_.by_name.end() && state_.graph.values[static_cast<size_t>(it->second)].is_constant();
      for (size_t k = first_op; it != state_.by_name.end() && !written && k < ops.size(); ++k) {
        for (int v : ops[k]->outputs) written = written || v == it->second;
      }
      if (!written) {
        return ctx.unsupported("output " + std::to_string(i) + " ('" + ctx.node().output(static_cast<int>(i)) +
                               "') is not supported");
      }
    }
    return {};
  }

  Status read_outputs(const onnx::GraphProto& g) {
    std::set<std::string> seen;
    for (const auto& info : g.output()) {
      // Outputs are found by name: a name listed twice is ambiguous (found by
      // fuzzing: the .mote verifier refuses such a file).
      if (!seen.insert(info.name()).second) {
        return invalid_model(state_.file + ": graph output '" + info.name() + "' is listed twice");
      }
      const int v = state_.resolve(info.name());  // a body may output a captured value
      if (v < 0) {
        return invalid_model(state_.file + ": graph output '" + info.name() + "' is not produced by any node");
      }
      Value& value = state_.graph.values[static_cast<size_t>(v)];
      DeclaredType d = declared_type(info);
      if (!value.dtype_known && d.elem_type) {
        if (auto dtype = dtype_from_onnx(d.elem_type); dtype.ok()) {
          value.dtype = *dtype;
          value.dtype_known = true;
        }
      }
      state_.graph.outputs.push_back(v);
    }
    return {};
  }

  const onnx::ModelProto* model_;  // null for a body
  const ImportOptions& options_;
  ImportState state_;
  OnnxImport result_;
  std::unordered_set<std::string> used_shapes_;
  const std::vector<std::optional<DType>>* body_formal_dtypes_ = nullptr;
};

}  // namespace

Result<ImportedBody> import_subgraph(ImportState& parent, const onnx::GraphProto& body,
                                     const std::vector<std::optional<DType>>& formal_dtypes) {
  static const ImportOptions kBodyOptions;  // no progress, no shape overrides
  ImportState state;
  state.file = parent.file;
  state.model_dir = parent.model_dir;
  state.opset = parent.opset;
  state.parent = &parent;
  return Importer(nullptr, kBodyOptions, std::move(state)).read_body(body, formal_dtypes);
}

Result<OnnxImport> import_onnx(const onnx::ModelProto& model, const std::string& file, const std::string& model_dir,
                               const ImportOptions& options) {
  ImportState state;
  state.file = file;
  state.model_dir = model_dir;
  return Importer(&model, options, std::move(state)).run();
}

Result<OnnxImport> import_onnx_file(const std::string& path, const ImportOptions& options) {
  MOTE_ASSIGN_OR_RETURN(std::unique_ptr<onnx::ModelProto> model, read_onnx_file(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  return import_onnx(*model, path, dir.empty() ? "." : dir, options);
}

}  // namespace mote::convert
