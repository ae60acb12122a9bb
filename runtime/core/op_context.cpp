// Error helpers of ShapeContext and KernelContext: every message names the op.
#include "runtime/core/kernel.hpp"
#include "runtime/core/op_def.hpp"
#include "runtime/core/registry.hpp"

namespace mote {

namespace {
std::string describe(const fb::OpT& op) {
  std::string s = op_type_name(op.type);
  if (!op.name.empty()) s += " '" + op.name + "'";
  return s;
}
}  // namespace

Status ShapeContext::fail(const std::string& message) const {
  return invalid_model(describe(op) + ": " + message);
}

Status KernelContext::fail(const std::string& message) const {
  return invalid_argument(describe(op) + ": " + message);
}

std::span<const fb::OpType> all_op_types() {
  static const std::vector<fb::OpType> types = [] {
    std::vector<fb::OpType> t;
    for (fb::OpType type : fb::EnumValuesOpType()) {
      if (type != fb::OpType::Invalid) t.push_back(type);
    }
    return t;
  }();
  return types;
}

const char* op_type_name(fb::OpType type) {
  const char* name = fb::EnumNameOpType(type);
  return name && *name ? name : "UnknownOp";
}

}  // namespace mote
