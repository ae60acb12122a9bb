// NumPy .npy files (format versions 1 to 3, little-endian, C order): how
// mote-convert --check exchanges tensors with its onnxruntime helper and
// takes --inputs.
#pragma once

#include <string>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote::convert {

Result<Tensor> read_npy(const std::string& path);
Status write_npy(const std::string& path, const Tensor& tensor);

}  // namespace mote::convert
