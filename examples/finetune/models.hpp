// The networks the finetune example trains from scratch, built with
// GraphBuilder and written as ordinary .mote files (random He-initialised
// weights, zero biases).
#pragma once

#include <string>

#include "mote/status.hpp"

namespace finetune {

// pixels [N, 64] -> Gemm 64 + Relu -> Gemm 10: scikit-learn's 8x8 digits.
mote::Status save_digits_mlp(const std::string& path);
// pixels [N, 1, 8, 8] -> Conv 16 3x3 + Relu -> MaxPool 2 -> Conv 32 3x3 +
// Relu -> MaxPool 2 -> Flatten -> Gemm 64 + Relu -> Gemm 10.
mote::Status save_digits_cnn(const std::string& path);
// pixels [N, 1, 28, 28] -> Conv 16 3x3 + Relu -> MaxPool 2 -> Conv 32 3x3 +
// Relu -> MaxPool 2 -> Flatten -> Gemm 128 + Relu -> Gemm 10: Fashion-MNIST.
mote::Status save_fashion_cnn(const std::string& path);

}  // namespace finetune
