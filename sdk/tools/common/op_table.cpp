#include "sdk/tools/common/op_table.hpp"

#include <algorithm>

#include "runtime/core/registry.hpp"
#include "sdk/tools/common/text.hpp"

namespace mote::tools {

OpSupport op_support(fb::OpType type) {
  OpSupport s;
  s.type = type;
  s.name = op_type_name(type);
  s.defined = find_op_def(type) != nullptr;
  s.optimised = find_cpu_kernel(type) != nullptr;
  s.reference = find_reference_kernel(type) != nullptr;
  // The session falls back to the reference kernel when no optimised one
  // exists (execution_plan.cpp), so either makes the op run on the CPU.
  s.vulkan = find_vulkan_kernel(type) != nullptr;
  if (s.optimised || s.reference) s.backends.emplace_back("cpu");
  if (s.vulkan) s.backends.emplace_back("vulkan");
  // "grad": the op has a gradient builder, so training can differentiate it.
  if (find_grad_builder(type)) s.backends.emplace_back("grad");
  return s;
}

std::vector<OpSupport> op_support_table() {
  std::vector<OpSupport> table;
  for (fb::OpType type : all_op_types()) table.push_back(op_support(type));
  return table;
}

std::string op_table_json(const std::vector<OpSupport>& table) {
  std::string out = "[\n";
  for (size_t i = 0; i < table.size(); ++i) {
    out += "  {\"op\": " + json_string(table[i].name) + ", \"backends\": [";
    for (size_t b = 0; b < table[i].backends.size(); ++b) {
      if (b) out += ", ";
      out += json_string(table[i].backends[b]);
    }
    out += i + 1 < table.size() ? "]},\n" : "]}\n";
  }
  out += "]\n";
  return out;
}

std::string op_table_text(const std::vector<OpSupport>& table) {
  size_t width = 2;
  for (const OpSupport& s : table) width = std::max(width, s.name.size());
  auto yes_no = [](bool b) { return b ? "yes" : "-"; };
  std::string out = pad_right("op", width) + "  defined  optimised  reference  vulkan  backends\n";
  int runnable = 0, on_vulkan = 0;
  for (const OpSupport& s : table) {
    std::string backends;
    for (const std::string& b : s.backends) backends += (backends.empty() ? "" : ",") + b;
    if (!s.backends.empty()) ++runnable;
    if (s.vulkan) ++on_vulkan;
    out += pad_right(s.name, width) + "  " + pad_right(yes_no(s.defined), 7) + "  " +
           pad_right(yes_no(s.optimised), 9) + "  " + pad_right(yes_no(s.reference), 9) + "  " +
           pad_right(yes_no(s.vulkan), 6) + "  " +
           (backends.empty() ? "-" : backends) + "\n";
  }
  out += std::to_string(runnable) + " of " + std::to_string(table.size()) + " op types run on at least one backend, " +
         std::to_string(on_vulkan) + " have a Vulkan kernel\n";
  return out;
}

}  // namespace mote::tools
