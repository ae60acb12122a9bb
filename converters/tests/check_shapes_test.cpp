// How mote-convert --check sizes the dynamic dimensions of the inputs it
// makes up (converters/tool/check_shapes.hpp).
#include <gtest/gtest.h>

#include "converters/tool/check_shapes.hpp"

namespace mote::convert {
namespace {

SourceInput source(const std::string& name, const std::vector<std::string>& dims) {
  SourceInput in;
  in.name = name;
  in.has_shape = true;
  for (const std::string& d : dims) {
    SourceDim dim;
    if (!d.empty() && d.find_first_not_of("0123456789") == std::string::npos) {
      dim.value = std::stoll(d);
    } else if (d != "?") {
      dim.symbol = d;
    }
    in.dims.push_back(dim);
  }
  return in;
}

Shape declared_shape(const SourceInput& in) {
  Shape s;
  for (const SourceDim& d : in.dims) s.push_back(d.value);
  return s;
}

Result<CheckShapes> choose(const std::vector<SourceInput>& inputs, CheckShapeSources sources = {}) {
  std::vector<std::pair<std::string, Shape>> declared;
  for (const SourceInput& in : inputs) {
    if (!sources.file_shapes.count(in.name)) declared.emplace_back(in.name, declared_shape(in));
  }
  sources.source.inputs = inputs;
  return choose_check_shapes(declared, sources);
}

// The reproduction: [N, 3, H, W] used to become 1x3x1x1, which a pooling
// window then rejected. Now the check names H and W and says how to size
// them, and does not run on made-up sizes.
TEST(CheckShapes, UnsizableDimensionsAreNamedWithTheFlagsToSizeThem) {
  auto r = choose({source("image", {"N", "3", "H", "W"})});
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("input 'image' dimension 2 (H), input 'image' dimension 3 (W)"), std::string::npos) << m;
  EXPECT_EQ(m.find("dimension 0"), std::string::npos) << "N is a batch dimension: " << m;
  EXPECT_NE(m.find("--dim H=SIZE --dim W=SIZE"), std::string::npos) << m;
  EXPECT_NE(m.find("--inputs image=FILE.npy"), std::string::npos) << m;
  EXPECT_NE(m.find("--input-shape image:DIMS"), std::string::npos) << m;
}

TEST(CheckShapes, BatchDimensionsAreOneAndDimFlagsSizeTheRest) {
  CheckShapeSources s;
  s.dim_sizes = {{"H", 480}, {"W", 640}};
  auto r = choose({source("image", {"batch_size", "3", "H", "W"})}, s);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shapes.at("image"), (Shape{1, 3, 480, 640}));
  ASSERT_EQ(r->notes.size(), 3u);
  EXPECT_NE(r->notes[0].find("a batch dimension"), std::string::npos) << r->notes[0];
  EXPECT_NE(r->notes[1].find("--dim H=480"), std::string::npos) << r->notes[1];
}

TEST(CheckShapes, ADenotedBatchDimensionIsOneWhateverItsName) {
  SourceInput in = source("x", {"d0", "16"});
  in.dims[0].denotation = "DATA_BATCH";
  auto r = choose({in});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shapes.at("x"), (Shape{1, 16}));
}

// A symbol shared by several inputs gets one size, taken from an input
// file where one gives it.
TEST(CheckShapes, ASharedSymbolTakesTheSizeAFileGives) {
  CheckShapeSources s;
  s.file_shapes["tokens"] = {2, 37};
  auto r = choose({source("tokens", {"batch", "seq"}), source("mask", {"batch", "seq"})}, s);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shapes.count("tokens"), 0u);
  EXPECT_EQ(r->shapes.at("mask"), (Shape{2, 37}));
}

TEST(CheckShapes, ASymbolSizedOnceIsSizedEverywhere) {
  CheckShapeSources s;
  s.dim_sizes = {{"seq", 12}};
  auto r = choose({source("a", {"seq", "8"}), source("b", {"8", "seq"})}, s);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shapes.at("a"), (Shape{12, 8}));
  EXPECT_EQ(r->shapes.at("b"), (Shape{8, 12}));
}

// Ultralytics writes imgsz and batch into the metadata of its exports.
TEST(CheckShapes, ExporterMetadataSizesImageInputs) {
  CheckShapeSources s;
  s.metadata = {{"onnx.imgsz", "[480, 640]"}, {"onnx.batch", "1"}};
  auto r = choose({source("images", {"batch", "3", "height", "width"})}, s);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shapes.at("images"), (Shape{1, 3, 480, 640}));
}

TEST(CheckShapes, AnUnnamedDynamicDimensionAsksForTheInputShape) {
  auto r = choose({source("x", {"4", "?"})});
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("input 'x' dimension 1"), std::string::npos) << m;
  EXPECT_NE(m.find("--input-shape x:DIMS"), std::string::npos) << m;
}

TEST(CheckShapes, StaticInputsNeedNothing) {
  auto r = choose({source("x", {"1", "3", "224", "224"})});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shapes.at("x"), (Shape{1, 3, 224, 224}));
  EXPECT_TRUE(r->notes.empty());
}

}  // namespace
}  // namespace mote::convert
