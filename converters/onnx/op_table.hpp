// The ONNX op types mote-convert maps, each with its mapper. Generated at
// build time (converters/generate_onnx_table.py) from the MOTE_ONNX_OP lines
// of converters/onnx/ops_*.cpp: the one place that says what is supported.
#pragma once

#include <span>
#include <string_view>

#include "converters/onnx/node_context.hpp"

namespace mote::convert {

struct OnnxOpEntry {
  std::string_view op_type;
  const OnnxMapper* mapper;
};

// Every mapped op, sorted by op type.
std::span<const OnnxOpEntry> onnx_op_table();
// nullptr when the op type has no mapper.
const OnnxMapper* find_onnx_mapper(std::string_view op_type);

}  // namespace mote::convert
