// The tuner's decision (tune_gpu_gemms, mote/gpu.hpp), apart from the runs
// that feed it, so it can be tested on made-up timings.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mote::gpu_tune {

// What one configuration (the profile's tiles, or one candidate tile for
// every product) measured for one GEMM shape.
struct ShapeTiming {
  double ms = 0;           // median over runs of the summed time of the ops launching it
  std::string launched;    // the tile that ran (GpuGemm::tile)
  std::set<int> ops;       // the GPU ops launching it
  bool shares_op = false;  // one of those ops launches other products too
};
using Timings = std::map<std::string, ShapeTiming>;  // by shape text, "512x49x4608x1"

struct Candidate {
  std::string tile;  // as MOTE_VK_GEMM_TILE writes it
  Timings timings;
};

struct ShapeChoice {
  std::string shape;
  double profile_ms = 0;
  std::string best;  // the winning candidate, or empty: the profile's tile
  double best_ms = 0;
  bool write = false;
  std::string note;  // why a shape is not written, when not for lack of gain
};

// Per shape of `base`, the fastest candidate under these rules:
// - a shape launched by an op that launches other products too (Attention)
//   is not tuned: its op time cannot be split between them;
// - a candidate counts for a shape only if the same ops launch it on the
//   GPU (an op that left the GPU under it would seem free) and it ran
//   another tile than the profile's (the same kernel differs by noise only);
// - it is written when it beats the profile by `min_gain` (a fraction).
std::vector<ShapeChoice> choose_tiles(const Timings& base, const std::vector<Candidate>& candidates, double min_gain);

}  // namespace mote::gpu_tune
