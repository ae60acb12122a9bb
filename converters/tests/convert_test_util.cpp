#include "converters/tests/convert_test_util.hpp"

#include <cmath>
#include <cstring>

#include "runtime/core/registry.hpp"

namespace mote::convert::test {

int Converted::count(fb::OpType type) const {
  int n = 0;
  for (const auto& op : model->graph().ops) n += op->type == type;
  return n;
}

int64_t Converted::counter(const std::string& pass, const std::string& what) const {
  for (const auto& e : result.log.entries()) {
    if (e.pass != pass) continue;
    auto it = e.counters.find(what);
    return it == e.counters.end() ? 0 : it->second;
  }
  return 0;
}

std::vector<DType> Converted::input_dtypes(fb::OpType type) const {
  const fb::GraphT& g = model->graph();
  std::vector<DType> dtypes;
  for (const auto& op : g.ops) {
    if (op->type == type) dtypes.push_back(g.tensors[static_cast<size_t>(op->inputs[0])]->dtype);
  }
  return dtypes;
}

std::vector<Tensor> Converted::run(const std::vector<Tensor>& inputs, Backend backend) const {
  auto session = Session::create(model, {.backend = backend, .threads = 1});
  EXPECT_TRUE(session.ok()) << session.status().to_string();
  if (!session.ok()) return {};
  auto out = (*session)->run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? std::move(out).value() : std::vector<Tensor>{};
}

namespace {
ConvertOptions to_options(const Options& o) {
  ConvertOptions c;
  c.passes.optimize = o.optimize;
  c.passes.fp16 = o.fp16;
  c.import.input_shapes = o.input_shapes;
  c.quantize = o.quantize;
  return c;
}
}  // namespace

Status try_convert(OnnxBuilder& b, const Options& options) {
  return convert_onnx(b.model(), "test.onnx", ".", to_options(options)).status();
}

Converted convert(OnnxBuilder& b, const Options& options) {
  Converted c;
  auto r = convert_onnx(b.model(), "test.onnx", ".", to_options(options));
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return c;
  c.result = std::move(r).value();
  c.file = Tensor::zeros(DType::U8, {static_cast<int64_t>(c.result.mote.size())});
  std::memcpy(c.file.raw(), c.result.mote.data(), c.result.mote.size());
  auto m = Model::from_buffer(c.file.raw(), c.result.mote.size(), "test.mote");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  if (m.ok()) c.model = *m;
  return c;
}

void expect_near(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  std::vector<double> x = a.to_doubles(), y = b.to_doubles();
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(x[i], y[i], tol * (1 + std::fabs(y[i]))) << "element " << i;
  }
}

void expect_same_outputs(OnnxBuilder& b, const std::vector<Tensor>& inputs, double tol, const Options& optimized,
                         Backend backend) {
  Converted plain = convert(b, {.optimize = false});
  Converted opt = convert(b, optimized);
  ASSERT_TRUE(plain.model && opt.model);
  std::vector<Tensor> want = plain.run(inputs), got = opt.run(inputs, backend);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) expect_near(got[i], want[i], tol);
}

}  // namespace mote::convert::test
