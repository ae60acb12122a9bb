// Reading and writing NumPy .npy files, the exchange format of mote-run and
// of the tests that compare against numpy.
//
// Supported: format versions 1, 2 and 3; little-endian (or byte-order-free)
// f2, f4, f8, i1, u1, i4, i8 and b1; C order. Anything else (Fortran order,
// big-endian data, structured or object dtypes) is refused with a message
// naming the file. The reader treats the file as untrusted: every length and
// count is checked before use, so a malformed file is an error, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::tools {

// Parses a complete .npy image; `name` stands for the file in messages.
Result<Tensor> parse_npy(const void* data, size_t size, const std::string& name = "<npy>");
// Reads and parses `path`.
Result<Tensor> read_npy(const std::string& path);

// The .npy image of `tensor`: version 1 header (version 2 when the shape is
// too long for it), padded so the data starts at a multiple of 64 bytes.
Result<std::vector<uint8_t>> encode_npy(const Tensor& tensor);
// Writes `tensor` to `path`.
Status write_npy(const std::string& path, const Tensor& tensor);

}  // namespace mote::tools
