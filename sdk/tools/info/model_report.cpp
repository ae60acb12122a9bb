#include "sdk/tools/info/model_report.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "mote/source_interface.hpp"
#include "sdk/tools/common/op_table.hpp"
#include "sdk/tools/common/text.hpp"

namespace mote::tools {
namespace {

const SourceInput* find_source_input(const SourceInterface* source, const std::string& name) {
  if (!source) return nullptr;
  for (const SourceInput& in : source->inputs) {
    if (in.name == name) return &in;
  }
  return nullptr;
}

void print_tensors(std::FILE* out, const char* title, const std::vector<TensorDesc>& tensors, bool outputs,
                   const SourceInterface* source) {
  std::fprintf(out, "%s (%zu)\n", title, tensors.size());
  size_t width = 4, shape_width = 0;
  for (const TensorDesc& t : tensors) {
    width = std::max(width, t.name.size());
    shape_width = std::max(shape_width, shape_to_string(t.shape).size());
  }
  for (const TensorDesc& t : tensors) {
    // GraphBuilder and converters may leave an output's shape to shape
    // inference; an empty declared shape then means "not declared".
    std::string shape = outputs && t.shape.empty() ? "(inferred at prepare)" : shape_to_string(t.shape);
    // Dynamic dimensions by the names the source model gave them.
    const SourceInput* src = outputs ? nullptr : find_source_input(source, t.name);
    bool dynamic = std::any_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d < 0; });
    std::string note = src && dynamic ? "  source " + source_dims_to_string(*src) : "";
    std::string line = "  " + pad_right(t.name, width) + "  " + pad_right(dtype_name(t.dtype), 4) + "  " +
                       (note.empty() ? shape : pad_right(shape, shape_width) + note);
    std::fprintf(out, "%s\n", line.c_str());
  }
}

// The converter records the source model's interface; any difference from
// the model's own names is a rename the user's code would trip over.
void print_source_names(std::FILE* out, const Model& model, const SourceInterface* source) {
  if (!source) {
    std::fprintf(out,
                 "source names  not recorded (a model built in code, or converted before mote-convert kept them)\n");
    return;
  }
  std::vector<std::string> renames;
  auto compare = [&](const char* what, const std::vector<std::string>& original, const std::vector<TensorDesc>& now) {
    if (original.size() != now.size()) {
      renames.push_back(std::string(what) + "s: " + std::to_string(original.size()) + " in the source, " +
                        std::to_string(now.size()) + " here");
      return;
    }
    for (size_t i = 0; i < now.size(); ++i) {
      if (original[i] != now[i].name) {
        renames.push_back(std::string(what) + " " + std::to_string(i) + ": '" + original[i] + "' -> '" + now[i].name +
                          "'");
      }
    }
  };
  std::vector<std::string> source_inputs;
  for (const SourceInput& in : source->inputs) source_inputs.push_back(in.name);
  compare("input", source_inputs, model.inputs());
  compare("output", source->outputs, model.outputs());
  if (renames.empty()) {
    std::fprintf(out, "source names  kept: %zu input%s and %zu output%s named as in the source model, no renames\n",
                 source_inputs.size(), source_inputs.size() == 1 ? "" : "s", source->outputs.size(),
                 source->outputs.size() == 1 ? "" : "s");
    return;
  }
  std::fprintf(out, "source names  %zu renamed by the converter:\n", renames.size());
  for (const std::string& r : renames) std::fprintf(out, "  %s\n", r.c_str());
}

void print_op_histogram(std::FILE* out, const fb::GraphT& graph) {
  std::map<fb::OpType, int> counts;
  for (const auto& op : graph.ops) ++counts[op->type];
  std::vector<std::pair<std::string, int>> rows;
  std::vector<std::string> missing;
  for (const auto& [type, count] : counts) {
    OpSupport support = op_support(type);
    rows.emplace_back(support.name, count);
    if (support.backends.empty()) missing.push_back(support.name);
  }
  // Most frequent first; ties in name order so the output is stable.
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::fprintf(out, "ops (%zu, %zu types)\n", graph.ops.size(), rows.size());
  size_t width = 2;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  for (const auto& [name, count] : rows) {
    bool runs = std::find(missing.begin(), missing.end(), name) == missing.end();
    std::fprintf(out, "  %s  %6d%s\n", pad_right(name, width).c_str(), count,
                 runs ? "" : "  (no kernel in this build)");
  }
}

}  // namespace

void print_model_report(std::FILE* out, const std::string& path, const Model& model) {
  std::error_code ec;
  uintmax_t file_size = std::filesystem::file_size(path, ec);
  std::fprintf(out, "model         %s\n", path.c_str());
  std::fprintf(out, "file size     %s\n", ec ? "unknown" : format_bytes(file_size).c_str());
  std::fprintf(out, "schema        version %u\n", model.def().schema_version);
  std::fprintf(out, "producer      %s\n", model.def().producer.empty() ? "(none)" : model.def().producer.c_str());
  std::fprintf(out, "parameters    %s\n", group_thousands(model.parameter_count()).c_str());
  std::fprintf(out, "weight bytes  %s\n", format_bytes(model.weight_bytes()).c_str());
  std::optional<SourceInterface> source = source_interface(model);
  print_tensors(out, "inputs", model.inputs(), false, source ? &*source : nullptr);
  print_tensors(out, "outputs", model.outputs(), true, nullptr);
  print_source_names(out, model, source ? &*source : nullptr);
  print_op_histogram(out, model.graph());
  std::fprintf(out, "metadata (%zu)\n", model.def().metadata.size());
  for (const auto& entry : model.def().metadata) {
    bool shown_above = entry->key == kSourceInputsKey || entry->key == kSourceOutputsKey;
    std::fprintf(out, "  %s = %s\n", entry->key.c_str(), shown_above ? "(shown above)" : entry->value.c_str());
  }
}

Status print_plan_report(std::FILE* out, std::shared_ptr<const Model> model,
                         const std::map<std::string, Shape>& shapes, int threads) {
  SessionOptions options;
  options.threads = threads;
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(std::move(model), options));
  MOTE_RETURN_IF_ERROR(session->prepare(shapes));
  const PlanStats& s = session->plan_stats();
  double saved = s.unshared_bytes ? 100.0 * (1.0 - static_cast<double>(s.arena_bytes) /
                                                     static_cast<double>(s.unshared_bytes))
                                  : 0.0;
  std::fprintf(out, "plan (cpu)\n");
  std::fprintf(out, "  arena         %s\n", format_bytes(s.arena_bytes).c_str());
  std::fprintf(out, "  unshared      %s (sharing saves %s%%)\n", format_bytes(s.unshared_bytes).c_str(),
               format_fixed(saved, 1).c_str());
  std::fprintf(out, "  ops           %d total, %d folded at prepare, %d with run-time shapes\n", s.ops_total,
               s.ops_folded, s.ops_dynamic);
  std::fprintf(out, "  folded bytes  %s\n", format_bytes(s.folded_bytes).c_str());
  std::fprintf(out, "  prepare       %s ms\n", format_fixed(s.prepare_ms, 3).c_str());
  return {};
}

}  // namespace mote::tools
