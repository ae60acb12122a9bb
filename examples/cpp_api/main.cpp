// Runs a .mote model through the C++ API and prints its outputs.
//
//   mote_example_cpp                  build a tiny model (y = Relu(x)), run it
//   mote_example_cpp model.mote       run a model file
//   mote_example_cpp --save out.mote  build the tiny model, save it there, run it
//
// Inputs are filled with a ramp (-1.5, -1, -0.5, 0, ...) so the outputs are
// easy to check by eye; dynamic dimensions are set to 1.
#include <cstdio>
#include <filesystem>
#include <string>

#include "mote/mote.hpp"

namespace {

// The model built when no file is given: one input, one Relu, one output.
mote::Status build_example_model(const std::string& path) {
  mote::GraphBuilder builder;
  int x = builder.add_input("x", mote::DType::F32, {2, 3});
  int y = builder.add_op(mote::fb::OpType::Relu, {x})[0];
  builder.mark_output(y, "y");
  builder.set_producer("mote cpp_api example");
  builder.set_metadata("description", "y = max(x, 0)");
  return builder.save(path);
}

mote::Tensor ramp_input(const mote::TensorDesc& desc) {
  mote::Shape shape = desc.shape;
  for (int64_t& d : shape) d = d < 0 ? 1 : d;
  mote::Tensor t = mote::Tensor::zeros(desc.dtype, shape);
  if (desc.dtype == mote::DType::F32) {
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.5f * static_cast<float>(i) - 1.5f;
  }
  return t;  // other dtypes stay zero: enough for a demonstration
}

int fail(const mote::Status& status) {
  std::fprintf(stderr, "mote_example_cpp: %s\n", status.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  if (argc == 3 && std::string(argv[1]) == "--save") {
    path = argv[2];
    if (auto st = build_example_model(path); !st.ok()) return fail(st);
  } else if (argc == 2 && argv[1][0] != '-') {
    path = argv[1];
  } else if (argc == 1) {
    path = (std::filesystem::temp_directory_path() / "mote_example_relu.mote").string();
    if (auto st = build_example_model(path); !st.ok()) return fail(st);
  } else {
    std::fprintf(stderr, "usage: %s [MODEL.mote | --save OUT.mote]\n", argv[0]);
    return 2;
  }

  // Load (memory-mapped, verified), then one session on the CPU backend.
  auto model = mote::Model::load(path);
  // The model is memory-mapped: a file of our own can go now (the mapping
  // stays valid), so the example leaves nothing in the temporary directory.
  if (argc == 1) std::filesystem::remove(path);
  if (!model.ok()) return fail(model.status());
  mote::SessionOptions options;
  options.threads = 1;
  auto session = mote::Session::create(*model, options);
  if (!session.ok()) return fail(session.status());

  std::vector<mote::Tensor> inputs;
  for (const mote::TensorDesc& desc : (*model)->inputs()) inputs.push_back(ramp_input(desc));
  // run() plans for these shapes on first use; prepare() could do it earlier.
  auto outputs = (*session)->run(inputs);
  if (!outputs.ok()) return fail(outputs.status());

  std::printf("model %s\n", path.c_str());
  std::vector<mote::TensorDesc> descs = (*model)->outputs();
  for (size_t k = 0; k < outputs->size(); ++k) {
    const mote::Tensor& out = (*outputs)[k];
    std::printf("%s %s %s:", descs[k].name.c_str(), mote::dtype_name(out.dtype()),
                mote::shape_to_string(out.shape()).c_str());
    std::vector<double> values = out.to_doubles();
    for (size_t i = 0; i < values.size() && i < 8; ++i) std::printf(" %g", values[i]);
    std::printf("%s\n", values.size() > 8 ? " ..." : "");
  }
  return 0;
}
