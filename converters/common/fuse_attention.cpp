// Attention fusion: scaled dot-product attention as exporters before ONNX
// opset 23 write it out,
//   MatMul(Softmax(MatMul(Q, K^T) * s + mask, axis -1), V)
// becomes one Attention op, whose CPU kernel keeps each block of scores in
// cache between the two products instead of writing and re-reading the
// [q_len, kv_len] matrix three times (runtime/cpu/attention.cpp).
//
// Accepted: the scale as scalar Mul or Div ops on Q, on K^T or on the scores
// (their product becomes the scale attribute), applied before the mask; an
// f32 additive mask with a key dimension as long as the keys (Attention
// pads a shorter one with -inf, where Add would broadcast it); K^T written
// by a Transpose (its perm is turned to give K, or the Transpose goes when
// that is the identity) or by anything else (a Transpose to K is added).
// Q, K^T and V of rank 3 ([batch, len, size], Attention's 3-D form with one
// head) or rank 4 ([batch, heads, len, size]) with the same static leading
// dimensions. Every intermediate must have no other reader and not be a
// graph output. torch's nn.MultiheadAttention (1.13 to 2.x exports), BERT
// and ViT exports have this form.
#include <algorithm>
#include <numeric>

#include "converters/common/passes.hpp"
#include "converters/common/pattern.hpp"
#include "runtime/ops/softmax.hpp"

namespace mote::convert {
namespace {

constexpr const char* kPass = "fuse_attention";

struct AttentionMatch {
  fb::OpT* output_op = nullptr;  // the second MatMul: becomes the Attention
  std::vector<fb::OpT*> removed;
  std::string name;  // the Softmax's
  int q = -1, kt = -1, v = -1, mask = -1;
  int masked_scores = -1;  // the mask's Add's output
  fb::OpT* k_transpose = nullptr;  // writes K^T, read only by the pattern
  float scale = 1.0f;
};

class AttentionMatcher {
 public:
  explicit AttentionMatcher(Graph& g) : g_(g), index_(g) {}

  std::optional<AttentionMatch> match(int softmax) {
    AttentionMatch m;
    fb::OpT& sm = op(softmax);
    if (sm.inputs.size() != 1 || sm.outputs.size() != 1 || !last_axis(sm)) return std::nullopt;
    m.name = sm.name;
    const int product = index_.sole_consumer(sm.outputs[0]);
    if (product < 0 || !plain_matmul(op(product)) || op(product).inputs[0] != sm.outputs[0]) return std::nullopt;
    m.output_op = &op(product);
    m.v = op(product).inputs[1];
    m.removed.push_back(&sm);

    // Down from the Softmax: the mask's Add, then scales, then Q K^T.
    int scores = sm.inputs[0];
    int p = index_.sole_producer(scores);
    if (p >= 0 && op(p).type == fb::OpType::Add && op(p).inputs.size() == 2 && !op(p).fused) {
      const int side = scores_side(op(p));
      if (side < 0) return std::nullopt;
      m.mask = op(p).inputs[static_cast<size_t>(1 - side)];
      m.masked_scores = op(p).outputs[0];
      m.removed.push_back(&op(p));
      scores = op(p).inputs[static_cast<size_t>(side)];
      p = index_.sole_producer(scores);
    }
    while (p >= 0 && absorb_scale(op(p), m.scale, scores)) {
      m.removed.push_back(&op(p));
      p = index_.sole_producer(scores);
    }
    if (p < 0 || !plain_matmul(op(p))) return std::nullopt;
    m.removed.push_back(&op(p));
    m.q = peel_scales(op(p).inputs[0], m);
    m.kt = peel_scales(op(p).inputs[1], m);
    if (m.scale == 0.0f || !shapes_fit(m, scores)) return std::nullopt;
    const int t = index_.sole_producer(m.kt);
    if (t >= 0 && op(t).type == fb::OpType::Transpose && op(t).inputs.size() == 1 && has_attrs<fb::TransposeAttrsT>(op(t))) {
      m.k_transpose = &op(t);
    }
    return m;
  }

 private:
  fb::OpT& op(int index) { return *g_.ops[static_cast<size_t>(index)]; }
  const Value& value(int v) const { return g_.values[static_cast<size_t>(v)]; }

  bool last_axis(const fb::OpT& sm) const {
    if (sm.type != fb::OpType::Softmax) return false;
    const Value& x = value(sm.inputs[0]);
    const int64_t axis = softmax_axis_attr(sm);
    return axis == -1 || (x.rank_known && axis == static_cast<int64_t>(x.shape.size()) - 1);
  }
  static bool plain_matmul(const fb::OpT& mm) {
    return mm.type == fb::OpType::MatMul && mm.inputs.size() == 2 && mm.outputs.size() == 1 && !mm.fused &&
           mm.inputs[0] >= 0 && mm.inputs[1] >= 0;
  }
  // Which input of the mask's Add carries the scores (a MatMul or a scale
  // written only for it), or -1.
  int scores_side(const fb::OpT& add) {
    for (int side = 0; side < 2; ++side) {
      const int p = index_.sole_producer(add.inputs[static_cast<size_t>(side)]);
      if (p < 0) continue;
      float unused = 1.0f;
      int through = -1;
      if (plain_matmul(op(p)) || absorb_scale(op(p), unused, through)) return side;
    }
    return -1;
  }
  // A scalar Mul or Div: multiplies `scale` and moves `x` to its other input.
  bool absorb_scale(const fb::OpT& o, float& scale, int& x) const {
    if (auto mul = scalar_operand(g_, o, fb::OpType::Mul)) {
      scale *= mul->constant;
      x = mul->variable;
      return true;
    }
    if (auto div = scalar_operand(g_, o, fb::OpType::Div); div && div->constant != 0.0f) {
      scale /= div->constant;
      x = div->variable;
      return true;
    }
    return false;
  }
  // `x` with the scale ops written only for the product peeled off.
  int peel_scales(int x, AttentionMatch& m) {
    for (int p = index_.sole_producer(x); p >= 0 && absorb_scale(op(p), m.scale, x); p = index_.sole_producer(x)) {
      m.removed.push_back(&op(p));
    }
    return x;
  }
  bool shapes_fit(const AttentionMatch& m, int scores) const {
    const Value &q = value(m.q), &kt = value(m.kt), &v = value(m.v), &s = value(scores);
    if (!q.rank_known || !kt.rank_known || !v.rank_known || !s.rank_known) return false;
    const size_t rank = q.shape.size();
    if ((rank != 3 && rank != 4) || kt.shape.size() != rank || v.shape.size() != rank || s.shape.size() != rank) {
      return false;
    }
    for (const Value* x : {&q, &kt, &v}) {
      if (x->dtype_known && x->dtype != DType::F32) return false;
      for (size_t d = 0; d + 2 < rank; ++d) {
        if (x->shape[d] <= 0 || x->shape[d] != q.shape[d]) return false;
      }
    }
    if (m.mask < 0) return true;
    const Value& mask = value(m.mask);
    // The Add must not broadcast the scores up, and the mask's key dimension
    // must be whole: Attention pads a shorter one instead of broadcasting it.
    const Value& sum = value(m.masked_scores);
    return mask.dtype_known && mask.dtype == DType::F32 && mask.rank_known && !mask.shape.empty() &&
           mask.shape.size() <= rank && mask.shape.back() > 0 && mask.shape.back() == s.shape.back() &&
           sum.rank_known && sum.shape == s.shape;
  }

  Graph& g_;
  PatternIndex index_;
};

size_t position_of(const Graph& g, const fb::OpT* op) {
  return static_cast<size_t>(
      std::find_if(g.ops.begin(), g.ops.end(), [&](const auto& slot) { return slot.get() == op; }) - g.ops.begin());
}

// The value K for K^T: the Transpose writing K^T turned to write K (or
// dropped when that is the identity), else a Transpose added before the
// Attention.
int key_of(Graph& g, const AttentionMatch& m, std::vector<fb::OpT*>& removed) {
  Shape k_shape = g.values[static_cast<size_t>(m.kt)].shape;
  std::swap(k_shape[k_shape.size() - 1], k_shape[k_shape.size() - 2]);
  if (m.k_transpose) {
    fb::TransposeAttrsT turned = attrs<fb::TransposeAttrsT>(*m.k_transpose);
    std::vector<int64_t>& perm = turned.perm;
    if (perm.size() == k_shape.size()) {
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      std::vector<int64_t> identity(perm.size());
      std::iota(identity.begin(), identity.end(), int64_t{0});
      if (perm == identity) {
        removed.push_back(m.k_transpose);
        return m.k_transpose->inputs[0];
      }
      set_attrs(*m.k_transpose, std::move(turned));
      g.values[static_cast<size_t>(m.kt)].shape = k_shape;
      return m.kt;
    }
  }
  const int k = g.add_derived_value(g.values[static_cast<size_t>(m.kt)].name + "_keys");
  g.values[static_cast<size_t>(k)].set_info(DType::F32, k_shape);
  std::vector<int64_t> perm(k_shape.size());
  std::iota(perm.begin(), perm.end(), int64_t{0});
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  fb::TransposeAttrsT attrs;
  attrs.perm = perm;
  set_attrs(g.insert_op(position_of(g, m.output_op), fb::OpType::Transpose, m.name + "_keys", {m.kt}, {k}), attrs);
  return k;
}

}  // namespace

Status fuse_attention(Graph& graph, PassLog& log) {
  // Matches first, rewrites after: inserting ops moves the indices. Matches
  // never share an op (every intermediate has a single reader).
  std::vector<AttentionMatch> matches;
  {
    AttentionMatcher matcher(graph);
    for (size_t i = 0; i < graph.ops.size(); ++i) {
      if (!graph.ops[i] || graph.ops[i]->type != fb::OpType::Softmax) continue;
      if (auto m = matcher.match(static_cast<int>(i))) matches.push_back(std::move(*m));
    }
  }
  for (AttentionMatch& m : matches) {
    const size_t rank = graph.values[static_cast<size_t>(m.q)].shape.size();
    const int k = key_of(graph, m, m.removed);
    int mask = m.mask;
    if (mask >= 0 && rank == 3 && graph.values[static_cast<size_t>(mask)].shape.size() == 3) {
      // Scores of the 3-D form are [batch, 1 head, q, kv]: the mask's batch
      // dimension moves out of the heads' place.
      Shape s = graph.values[static_cast<size_t>(mask)].shape;
      s.insert(s.begin() + 1, 1);
      const int axes = graph.add_derived_constant(m.name + "_mask_axes", Tensor::from_vector<int64_t>({1}, {1}));
      const int unsqueezed = graph.add_derived_value(graph.values[static_cast<size_t>(mask)].name + "_4d");
      graph.values[static_cast<size_t>(unsqueezed)].set_info(DType::F32, s);
      graph.insert_op(position_of(graph, m.output_op), fb::OpType::Unsqueeze, m.name + "_mask_4d", {mask, axes},
                      {unsqueezed});
      mask = unsqueezed;
    }
    std::string removed;
    for (fb::OpT* op : m.removed) removed += (removed.empty() ? "" : ", ") + Graph::op_label(*op);
    log.count(kPass, "Attention");
    log.note(kPass, removed + " and " + Graph::op_label(*m.output_op) + " became one Attention");
    fb::OpT& att = *m.output_op;
    att.type = fb::OpType::Attention;
    att.name = m.name;
    att.inputs = {m.q, k, m.v};
    if (mask >= 0) att.inputs.push_back(mask);
    fb::AttentionAttrsT a;
    a.scale = m.scale;
    if (rank == 3) a.q_num_heads = a.kv_num_heads = 1;
    set_attrs(att, a);
    for (auto& slot : graph.ops) {
      if (std::find(m.removed.begin(), m.removed.end(), slot.get()) != m.removed.end()) slot.reset();
    }
  }
  graph.compact();
  return {};
}

}  // namespace mote::convert
