// Small text helpers the tools share: JSON string quoting, column padding and
// human-readable sizes.
#pragma once

#include <cstdint>
#include <string>

namespace mote::tools {

// `s` as a JSON string literal, quotes included; control characters escaped.
std::string json_string(const std::string& s);
// `s` padded with spaces to at least `width` characters.
std::string pad_right(const std::string& s, size_t width);
// "1.5 MiB (1572864 bytes)"; plain "512 bytes" below 1 KiB.
std::string format_bytes(uint64_t bytes);
// "1234567" -> "1,234,567".
std::string group_thousands(int64_t value);
// `value` with `decimals` digits after the point.
std::string format_fixed(double value, int decimals);
// `s` with line breaks replaced by spaces, so an error stays one line.
std::string one_line(std::string s);

}  // namespace mote::tools
