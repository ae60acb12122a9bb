// Builders of well-known network shapes with GraphBuilder and random (He
// initialised, seeded) weights: the demo model and the benchmark workloads.
// Activations are fused into the convolutions, as mote-convert emits them.
#pragma once

#include <string>
#include <vector>

#include "mote/graph_builder.hpp"

namespace mote::zoo {

struct ZooModel {
  std::string name;         // file stem, e.g. "resnet18"
  std::string description;  // one line for --help and logs
  GraphBuilder (*build)(int batch);
};

// ResNet-18 (ImageNet, 1x3x224x224 -> 1x1000).
GraphBuilder resnet18(int batch = 1);
// MobileNetV2 1.0 (ImageNet, 1x3x224x224 -> 1x1000).
GraphBuilder mobilenet_v2(int batch = 1);
// A small CNN for 1x28x28 digits: the bundled demo model.
GraphBuilder small_cnn(int batch = 1);

const std::vector<ZooModel>& all_models();

}  // namespace mote::zoo
