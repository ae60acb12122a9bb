// Labelled examples held in memory: images or feature rows [N, ...] as f32,
// labels [N] as i64, read from the .npy files the prepare_*.py scripts write.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace finetune {

struct Dataset {
  mote::Tensor x;
  mote::Tensor y;

  int64_t size() const { return y.numel(); }
  // Rows `order[begin..end)`, gathered into a new batch.
  Dataset gather(const std::vector<int64_t>& order, int64_t begin, int64_t end) const;
  // Rows [begin, end) in their stored order.
  Dataset slice(int64_t begin, int64_t end) const;
  // The same elements with each row reshaped to `row_shape` (e.g. {1, 8, 8}).
  mote::Status reshape_rows(const mote::Shape& row_shape);
  // x * factor, in place (pixels in [0, 1] to the 0..255 a model expects).
  void scale(float factor);
};

// Reads X_FILE and Y_FILE (.npy, f32 and i64) and checks they match.
mote::Result<Dataset> load_dataset(const std::string& x_file, const std::string& y_file);

// A fresh random order of [0, n) per call.
std::vector<int64_t> shuffled(int64_t n, std::mt19937& rng);

// Fraction of rows whose largest logit is at the label.
double accuracy(const mote::Tensor& logits, const mote::Tensor& labels);

}  // namespace finetune
