// A minimal PNG writer (8-bit RGB, uncompressed deflate blocks): enough for
// the loss plot without pulling an image library into the example.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mote/status.hpp"

namespace finetune {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

class Image {
 public:
  Image(int width, int height, Rgb background);
  int width() const { return width_; }
  int height() const { return height_; }
  // Pixels outside the image are ignored.
  void set(int x, int y, Rgb c);
  // A line `thickness` pixels wide from (x0, y0) to (x1, y1).
  void line(int x0, int y0, int x1, int y1, Rgb c, int thickness = 1);
  mote::Status save_png(const std::string& path) const;

 private:
  int width_, height_;
  std::vector<Rgb> pixels_;
};

}  // namespace finetune
