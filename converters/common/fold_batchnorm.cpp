// BatchNormalization folding. At inference BN is y = (x - mean) * s + beta
// with s = gamma / sqrt(var + epsilon), an affine map per channel, so after
// a Conv (channel = output channel m) or a Gemm (channel = column n) it can
// be folded into the weights and bias:
//   Conv: W'[m] = W[m] * s[m],          b'[m] = (b[m] - mean[m]) * s[m] + beta[m]
//   Gemm: B'[:,n] = alpha * B[:,n] * s[n], C'[n] = (beta_g * C[n] - mean[n]) * s[n] + beta[n]
// New weight tensors are created (the old ones may be shared); the producer
// takes over the BN's output so names and graph outputs are unchanged.
// Arithmetic is in double so folding adds no rounding of its own.
#include <cmath>

#include "converters/common/passes.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fold_batchnorm";

const Tensor* f32_constant(const Graph& g, const fb::OpT& op, size_t i) {
  if (i >= op.inputs.size() || op.inputs[i] < 0) return nullptr;
  const Value& v = g.values[static_cast<size_t>(op.inputs[i])];
  return v.is_constant() && v.data->dtype() == DType::F32 ? &*v.data : nullptr;
}

// Per-channel scale s and shift (beta - mean * s) of a BN with constant
// parameters, or nullopt.
struct Affine {
  std::vector<double> scale, mean, beta;
};
std::optional<Affine> bn_affine(const Graph& g, const fb::OpT& bn, int64_t channels) {
  const Tensor* gamma = f32_constant(g, bn, 1);
  const Tensor* beta = f32_constant(g, bn, 2);
  const Tensor* mean = f32_constant(g, bn, 3);
  const Tensor* var = f32_constant(g, bn, 4);
  if (!gamma || !beta || !mean || !var) return std::nullopt;
  for (const Tensor* t : {gamma, beta, mean, var}) {
    if (t->numel() != channels) return std::nullopt;
  }
  double eps = attrs<fb::NormAttrsT>(bn).epsilon;
  Affine a;
  for (int64_t c = 0; c < channels; ++c) {
    a.scale.push_back(gamma->data<float>()[c] / std::sqrt(static_cast<double>(var->data<float>()[c]) + eps));
    a.mean.push_back(mean->data<float>()[c]);
    a.beta.push_back(beta->data<float>()[c]);
  }
  return a;
}

bool fold_into_conv(Graph& g, fb::OpT& conv, const fb::OpT& bn) {
  const Tensor* w = f32_constant(g, conv, 1);
  if (!w || w->rank() < 3) return false;
  const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] >= 0;
  const Tensor* b = has_bias ? f32_constant(g, conv, 2) : nullptr;
  if (has_bias && !b) return false;
  const int64_t m = w->dim(0);
  auto affine = bn_affine(g, bn, m);
  if (!affine || (b && b->numel() != m)) return false;

  Tensor w2 = Tensor::zeros(DType::F32, w->shape());
  Tensor b2 = Tensor::zeros(DType::F32, {m});
  const int64_t per_channel = w->numel() / m;
  for (int64_t c = 0; c < m; ++c) {
    double s = affine->scale[static_cast<size_t>(c)];
    for (int64_t k = 0; k < per_channel; ++k) {
      w2.data<float>()[c * per_channel + k] = static_cast<float>(w->data<float>()[c * per_channel + k] * s);
    }
    double bias = b ? b->data<float>()[c] : 0.0;
    b2.data<float>()[c] = static_cast<float>((bias - affine->mean[static_cast<size_t>(c)]) * s +
                                             affine->beta[static_cast<size_t>(c)]);
  }
  conv.inputs.resize(3);
  conv.inputs[1] = g.add_derived_constant(conv.name + "/bn_folded_weight", std::move(w2));
  conv.inputs[2] = g.add_derived_constant(conv.name + "/bn_folded_bias", std::move(b2));
  return true;
}

bool fold_into_gemm(Graph& g, fb::OpT& gemm, const fb::OpT& bn) {
  const Tensor* bmat = f32_constant(g, gemm, 1);
  if (!bmat || bmat->rank() != 2) return false;
  fb::GemmAttrsT attrs_g = attrs<fb::GemmAttrsT>(gemm);
  const int64_t n = attrs_g.trans_b ? bmat->dim(0) : bmat->dim(1);
  const int64_t k = attrs_g.trans_b ? bmat->dim(1) : bmat->dim(0);
  const bool has_c = gemm.inputs.size() > 2 && gemm.inputs[2] >= 0;
  const Tensor* c = has_c ? f32_constant(g, gemm, 2) : nullptr;
  if (has_c && !c) return false;
  // C must be per column (or a scalar) to fold into a per-column bias.
  if (c && !(c->numel() == 1 || (c->numel() == n && c->shape().back() == n))) return false;
  auto affine = bn_affine(g, bn, n);
  if (!affine) return false;

  Tensor b2 = Tensor::zeros(DType::F32, bmat->shape());
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t col = 0; col < n; ++col) {
      int64_t at = attrs_g.trans_b ? col * k + kk : kk * n + col;
      b2.data<float>()[at] =
          static_cast<float>(attrs_g.alpha * bmat->data<float>()[at] * affine->scale[static_cast<size_t>(col)]);
    }
  }
  Tensor c2 = Tensor::zeros(DType::F32, {n});
  for (int64_t col = 0; col < n; ++col) {
    double cv = c ? c->data<float>()[c->numel() == 1 ? 0 : col] * static_cast<double>(attrs_g.beta) : 0.0;
    size_t i = static_cast<size_t>(col);
    c2.data<float>()[col] = static_cast<float>((cv - affine->mean[i]) * affine->scale[i] + affine->beta[i]);
  }
  attrs_g.alpha = 1.0f;
  attrs_g.beta = 1.0f;
  set_attrs(gemm, attrs_g);
  gemm.inputs.resize(3);
  gemm.inputs[1] = g.add_derived_constant(gemm.name + "/bn_folded_weight", std::move(b2));
  gemm.inputs[2] = g.add_derived_constant(gemm.name + "/bn_folded_bias", std::move(c2));
  return true;
}

}  // namespace

Status fold_batchnorm(Graph& graph, PassLog& log) {
  std::vector<int> producers = graph.producers();
  std::vector<std::vector<int>> consumers = graph.consumers();
  for (auto& slot : graph.ops) {
    if (!slot || slot->type != fb::OpType::BatchNormalization) continue;
    const fb::OpT& bn = *slot;
    if (attrs<fb::NormAttrsT>(bn).training_mode || bn.outputs.size() != 1 || bn.inputs.empty()) continue;
    int x = bn.inputs[0];
    int p = x < 0 ? -1 : producers[static_cast<size_t>(x)];
    if (p < 0 || !graph.ops[static_cast<size_t>(p)]) continue;
    fb::OpT& producer = *graph.ops[static_cast<size_t>(p)];
    // The producer's output must feed this BN alone, and nothing may be
    // fused into the producer yet (an activation or a Conv's residual would
    // come before BN, and the residual would need scaling too).
    const bool has_residual = producer.inputs.size() > 3 && producer.inputs[3] >= 0;
    if (consumers[static_cast<size_t>(x)].size() != 1 || graph.is_output(x) || producer.fused || has_residual) {
      continue;
    }
    bool folded = false;
    if (producer.type == fb::OpType::Conv) {
      folded = fold_into_conv(graph, producer, bn);
    } else if (producer.type == fb::OpType::Gemm) {
      folded = fold_into_gemm(graph, producer, bn);
    }
    if (!folded) continue;
    producer.outputs[0] = bn.outputs[0];
    log.count(kPass, std::string(producer.type == fb::OpType::Conv ? "Conv" : "Gemm") + "+BatchNormalization");
    log.note(kPass, "folded " + Graph::op_label(bn) + " into " + Graph::op_label(producer));
    slot.reset();
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
