// Gemm and MatMul.
#include "converters/onnx/mapper_util.hpp"

namespace mote::convert {
namespace {

Status map_gemm(NodeContext& ctx) {
  fb::GemmAttrsT a;
  a.alpha = ctx.attr_float("alpha", 1.0f);
  a.beta = ctx.attr_float("beta", 1.0f);
  a.trans_a = ctx.attr_int("transA", 0) != 0;
  a.trans_b = ctx.attr_int("transB", 0) != 0;
  // Opsets before 7 had a 'broadcast' attribute for C; Mote always
  // broadcasts C unidirectionally, which is what broadcast=1 meant and a
  // superset of broadcast=0.
  std::vector<int> inputs = {ctx.input(0), ctx.input(1)};
  if (ctx.has_input(2)) inputs.push_back(ctx.input(2));
  ctx.emit(fb::OpType::Gemm, inputs, {ctx.output(0)}, a);
  return ctx.status();
}

Status map_matmul(NodeContext& ctx) {
  ctx.emit(fb::OpType::MatMul, {ctx.input(0), ctx.input(1)}, {ctx.output(0)});
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(Gemm, map_gemm);
MOTE_ONNX_OP(MatMul, map_matmul);

}  // namespace mote::convert
