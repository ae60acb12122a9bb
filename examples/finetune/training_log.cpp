#include "examples/finetune/training_log.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "examples/finetune/png.hpp"

namespace finetune {

void TrainingLog::step(int64_t step, int epoch, float loss, float learning_rate) {
  steps_.push_back({step, epoch, loss, learning_rate});
}

void TrainingLog::epoch(int epoch, double test_accuracy) {
  accuracy_.resize(static_cast<size_t>(std::max<int>(epoch, 1)));
  accuracy_[static_cast<size_t>(epoch - 1)] = test_accuracy;
}

mote::Status TrainingLog::write_csv(const std::string& path) const {
  std::ofstream out(path);
  out << "step,epoch,loss,learning_rate\n";
  char line[128];
  for (const Step& s : steps_) {
    std::snprintf(line, sizeof line, "%lld,%d,%.6g,%.6g\n", static_cast<long long>(s.step), s.epoch, s.loss,
                  s.learning_rate);
    out << line;
  }
  out << "\nepoch,test_accuracy\n";
  for (size_t e = 0; e < accuracy_.size(); ++e) out << e + 1 << "," << accuracy_[e] << "\n";
  if (!out) return mote::io_error("cannot write " + path);
  return {};
}

mote::Status TrainingLog::write_png(const std::string& path) const {
  constexpr int kWidth = 800, kHeight = 400, kMargin = 20;
  constexpr int kPlotW = kWidth - 2 * kMargin, kPlotH = kHeight - 2 * kMargin;
  Image image(kWidth, kHeight, {255, 255, 255});
  auto y_of = [&](double fraction) { return kMargin + static_cast<int>((1.0 - fraction) * kPlotH); };
  for (int q = 0; q <= 4; ++q) image.line(kMargin, y_of(q / 4.0), kMargin + kPlotW, y_of(q / 4.0), {220, 220, 220});
  image.line(kMargin, kMargin, kMargin, kMargin + kPlotH, {90, 90, 90});

  if (!steps_.empty()) {
    // The mean loss of the steps falling into each pixel column.
    std::vector<double> sum(kPlotW, 0.0);
    std::vector<int> count(kPlotW, 0);
    for (size_t i = 0; i < steps_.size(); ++i) {
      const auto column = static_cast<size_t>(i * kPlotW / steps_.size());
      sum[column] += steps_[i].loss;
      ++count[column];
    }
    double top = 0;
    for (int c = 0; c < kPlotW; ++c) {
      if (count[static_cast<size_t>(c)] > 0) top = std::max(top, sum[static_cast<size_t>(c)] / count[static_cast<size_t>(c)]);
    }
    int px = -1, py = 0;
    for (int c = 0; c < kPlotW; ++c) {
      if (count[static_cast<size_t>(c)] == 0) continue;
      const double mean = sum[static_cast<size_t>(c)] / count[static_cast<size_t>(c)];
      const int x = kMargin + c, y = y_of(top > 0 ? mean / top : 0.0);
      if (px >= 0) image.line(px, py, x, y, {31, 119, 180}, 2);
      px = x;
      py = y;
    }
  }
  const size_t epochs = accuracy_.size();
  for (size_t e = 0; e < epochs; ++e) {
    const int x = kMargin + static_cast<int>((e + 1) * kPlotW / epochs), y = y_of(accuracy_[e]);
    if (e > 0) {
      image.line(kMargin + static_cast<int>(e * kPlotW / epochs), y_of(accuracy_[e - 1]), x, y, {255, 127, 14}, 2);
    }
    image.line(x - 3, y, x + 3, y, {255, 127, 14}, 3);  // a marker per epoch
  }
  return image.save_png(path);
}

}  // namespace finetune
