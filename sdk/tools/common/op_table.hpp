// Which op types this build can run, and where: the table behind
// `mote-info --ops`, shared with mote-bench and any later tool so they never
// disagree. It is computed from the generated registry (runtime/core/
// registry.hpp), the one source of truth; nothing here lists ops by hand.
#pragma once

#include <string>
#include <vector>

#include "mote/tensor.hpp"

namespace mote::tools {

struct OpSupport {
  fb::OpType type = fb::OpType::Invalid;
  std::string name;
  bool defined = false;    // has an op definition (shape function): models using it load
  bool optimised = false;  // has an optimised CPU kernel (runtime/cpu)
  bool reference = false;  // has a reference kernel (runtime/reference)
  bool vulkan = false;     // has a Vulkan kernel (runtime/vulkan/kernels)
  // Backends that run the op, in a fixed order: "cpu" when either CPU kernel
  // exists, then "vulkan". Later backends ("grad") are appended in op_support.
  std::vector<std::string> backends;
};

// Every op type of the schema (all_op_types(), enum order).
std::vector<OpSupport> op_support_table();
// Looks one op type up; a default OpSupport (nothing supported) if unknown.
OpSupport op_support(fb::OpType type);

// [{"op": "Add", "backends": ["cpu"]}, ...]: exactly these two keys per entry,
// one entry per line, for scripts and CI checks.
std::string op_table_json(const std::vector<OpSupport>& table);
// An aligned text table with the kernels behind each backend and a summary line.
std::string op_table_text(const std::vector<OpSupport>& table);

}  // namespace mote::tools
