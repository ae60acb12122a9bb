// The TFLite builtin operators mote-convert maps, each with its mapper.
// Generated at build time (converters/generate_op_table.py) from the
// MOTE_TFLITE_OP lines of converters/tflite/ops_*.cpp.
#pragma once

#include <span>
#include <string_view>

#include "converters/tflite/op_context.hpp"

namespace mote::convert {

struct TfliteOpEntry {
  std::string_view op_type;
  const TfliteMapper* mapper;
};

// Every mapped operator, sorted by name.
std::span<const TfliteOpEntry> tflite_op_table();
// nullptr when the operator has no mapper.
const TfliteMapper* find_tflite_mapper(std::string_view op_type);

}  // namespace mote::convert
