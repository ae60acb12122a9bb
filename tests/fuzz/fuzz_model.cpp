// Fuzz target: a .mote file through the loader and verifier, and a model that
// loads through Session::prepare and one run on the CPU with zero inputs. A
// file may be refused with an error; nothing may crash, hang or allocate
// without bound (the session's max_arena_bytes caps what a plan may take).
#include <algorithm>
#include <vector>

#include "mote/mote.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

constexpr int64_t kMaxInputElements = int64_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mote;
  Tensor bytes = fuzz::aligned_copy(data, size);
  auto model = Model::from_buffer(bytes.raw(), size, "fuzz.mote");
  if (!model.ok()) return 0;
  SessionOptions options;
  options.threads = 1;
  options.max_arena_bytes = uint64_t{256} << 20;
  auto session = Session::create(*model, options);
  if (!session.ok()) return 0;
  std::vector<Tensor> inputs;
  for (const TensorDesc& input : (*model)->inputs()) {
    Shape shape = input.shape;
    for (int64_t& d : shape) d = std::max<int64_t>(d, 1);  // a dynamic dimension runs at 1
    int64_t n = shape_numel(shape);
    if (n < 0 || n > kMaxInputElements) return 0;
    inputs.push_back(Tensor::zeros(input.dtype, shape));
    if (n > 0 && !inputs.back().raw()) return 0;
  }
  auto outputs = (*session)->run(inputs);
  (void)outputs;  // an error is a fine outcome; a crash is not
  return 0;
}
