// Graph passes run between import and writing, each in its own file. Every
// pass reports what it changed to a PassLog, which mote-convert prints.
//
// Order matters and is fixed by run_passes() (pipeline.cpp): copies go first
// so patterns are adjacent, shapes are propagated and constants folded
// together (folding needs shapes, and folded shape chains give more shapes),
// then BatchNormalization folding before activation fusion (Conv-BN-Relu
// becomes Conv+Relu), dead ops last.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "converters/common/graph.hpp"

namespace mote::convert {

class PassLog {
 public:
  // Adds `n` to the counter `what` of `pass` ("fold_constants", "ops folded").
  void count(const std::string& pass, const std::string& what, int64_t n = 1);
  // A detail line, printed with --verbose.
  void note(const std::string& pass, const std::string& line);

  struct Entry {
    std::string pass;
    std::map<std::string, int64_t> counters;
    std::vector<std::string> notes;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  Entry& entry(const std::string& pass);
  std::vector<Entry> entries_;
};

// f16 graph inputs, outputs, constants and intermediates: computed in f32,
// with Casts at the graph's edges (widen_f16.cpp says why).
// `keep_f16_edges` is false for control-flow bodies (see widen_f16.cpp).
Status widen_f16(Graph& graph, PassLog& log, bool keep_f16_edges = true);

// Identity ops (ONNX Identity, inference-time Dropout) are removed by
// rewiring their readers to their input.
Status remove_identities(Graph& graph, PassLog& log);

// Forward shape and dtype inference with the runtime's shape functions;
// dynamic dimensions stay -1 where a simple rule keeps them (elementwise,
// broadcasting).
Status propagate_shapes(Graph& graph, PassLog& log);
// The same for one op (fold_constants walks with it); true when the runtime's
// shape function gave static shapes.
bool infer_and_record(Graph& graph, const fb::OpT& op);

struct FoldOptions {
  // A folded result larger than this, and larger than its inputs together,
  // stays an op: it would only grow the file.
  uint64_t max_growth_bytes = 1 << 20;
};
// Runs ops whose inputs are all known at conversion time (weights, Shape of a
// static shape, Gather/Slice of the static part of a Shape) with the
// reference kernels and replaces them by constants. Infers shapes as it goes.
Status fold_constants(Graph& graph, PassLog& log, const FoldOptions& options = {});

// An If whose condition is a constant becomes the ops of the branch it
// takes; `changed` tells whether any did (fold_if.cpp).
Status fold_if(Graph& graph, PassLog& log, bool& changed);
// A Loop with a small constant trip count whose body keeps its condition
// true becomes copies of its body (unroll_loops.cpp).
Status unroll_loops(Graph& graph, PassLog& log, bool& changed);

// BatchNormalization after a Conv or Gemm with constant weights is folded
// into the weights and bias, when nothing else reads the Conv's output.
Status fold_batchnorm(Graph& graph, PassLog& log);

// Add(Conv(x), r) with r of the Conv output's shape becomes the Conv's
// residual input (fuse_residual.cpp); before fuse_activations, so that a
// Relu after the Add joins the same Conv.
Status fuse_residual_add(Graph& graph, PassLog& log);

// Add(MatMul(A, W), b) with constant W [K, N] and b of N values becomes a
// Gemm with b as C (an A of rank above 2 and static shape reshaped to 2-D
// around it); before fuse_activations (fuse_matmul_bias.cpp).
Status fuse_matmul_bias(Graph& graph, PassLog& log);

// 0.5 * x * (1 + erf(x / sqrt(2))), written out in any of its usual forms,
// becomes one Gelu op (fuse_gelu.cpp).
Status fuse_gelu(Graph& graph, PassLog& log);

// MatMul(Softmax(MatMul(Q, K^T) * s + mask), V), the attention of exports
// before opset 23, becomes one Attention op (fuse_attention.cpp).
Status fuse_attention(Graph& graph, PassLog& log);

// Relu, Clip (constant bounds), HardSwish, Sigmoid, LeakyRelu and
// x*Sigmoid(x) (SiLU) after Conv, ConvTranspose, Gemm or MatMul become the
// op's fused activation.
Status fuse_activations(Graph& graph, PassLog& log);
// The fused form of a one-input activation op (Relu, Clip with constant
// bounds...), or nullopt (fuse_activations.cpp; fold_qdq uses it too).
std::optional<fb::FusedActivationT> as_fused(const Graph& g, const fb::OpT& act);
// Input i of `op` when it is a constant one-element f32 tensor, else nullopt.
std::optional<float> constant_scalar(const Graph& g, const fb::OpT& op, size_t i);

// Quantised models (ONNX QDQ, TFLite int8): DequantizeLinear(x), a Conv on
// DequantizeLinear(constant int8 W), an optional Relu or Clip, and
// QuantizeLinear become one QLinearConv (fold_qdq.cpp), before constant
// folding turns the weights' DequantizeLinear into float.
Status fold_qdq(Graph& graph, PassLog& log);
// After fold_qdq: the quantised Adds, Muls, Concats and average pools of a
// QDQ model become their int8 ops, and MaxPool, Resize (nearest or linear) and the
// reshaping ops between equal Q/DQ parameters run on the 8-bit tensor
// (fold_qdq_elementwise.cpp).
Status fold_qdq_elementwise(Graph& graph, PassLog& log);

// Removes ops whose outputs nobody reads, then unreferenced values.
Status remove_dead(Graph& graph, PassLog& log);

// Stores float weights as f16 (the runtime widens them at load). Skips
// tensors read as shape-deciding values, small ones (epsilons, bounds) and
// those with values beyond f16's range.
Status convert_weights_to_f16(Graph& graph, PassLog& log);

struct PipelineOptions {
  bool optimize = true;  // folding, BN folding, fusion
  bool fp16 = false;
  FoldOptions fold;
};
Status run_passes(Graph& graph, const PipelineOptions& options, PassLog& log);

}  // namespace mote::convert
