// What mote-convert prints: progress lines while it works and the report at
// the end (op histograms, what each pass did, weights, time).
#pragma once

#include <cstdio>
#include <string>

#include "converters/common/conversion.hpp"

namespace mote::convert {

// Prints "nodes: 40% (400/1000)" lines to stderr.
void print_progress(const char* stage, size_t done, size_t total);

// The --quantize int8 part of the report.
void print_quantize_report(FILE* out, const QuantizeReport& q);

void print_report(FILE* out, const std::string& in_path, const std::string& out_path, const ConvertResult& r,
                  bool verbose, double total_ms);

}  // namespace mote::convert
