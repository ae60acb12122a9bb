// What a training run leaves behind: a CSV of the loss curve (one row per
// step) and a PNG plot of it with the test accuracy per epoch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"

namespace finetune {

class TrainingLog {
 public:
  void step(int64_t step, int epoch, float loss, float learning_rate);
  void epoch(int epoch, double test_accuracy);

  // step,epoch,loss,learning_rate; then a blank line and epoch,test_accuracy.
  mote::Status write_csv(const std::string& path) const;
  // 800x400, white: grey grid at quarters; blue: the training loss averaged
  // per pixel column, scaled so the highest value touches the top; orange:
  // test accuracy per epoch on a 0..1 axis (the grid lines are 0.25 apart).
  mote::Status write_png(const std::string& path) const;

 private:
  struct Step {
    int64_t step;
    int epoch;
    float loss, learning_rate;
  };
  std::vector<Step> steps_;
  std::vector<double> accuracy_;  // per epoch
};

}  // namespace finetune
