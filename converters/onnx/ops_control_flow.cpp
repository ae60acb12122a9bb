// ONNX If, Loop and Scan: each body (a GraphProto attribute) is imported as a
// subgraph of the graph holding the node. A body reads values of the
// enclosing scopes by name; those become explicit inputs (captures) after
// its own, fed by the op's last inputs (runtime/core/control_flow.hpp has
// the operand order). Captured constants are copied into the body instead,
// so folding inside the body still sees them.
#include "converters/onnx/mapper_util.hpp"
#include "converters/onnx/node_context.hpp"

namespace mote::convert {
namespace {

// The op's outputs take the dtypes the (first) body declares for them.
void type_outputs_from(NodeContext& ctx, const ImportedBody& body, size_t first_body_output,
                       const std::vector<int>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value& v = ctx.graph().values[static_cast<size_t>(outputs[i])];
    size_t k = first_body_output + i;
    if (k < body.output_dtypes.size() && body.output_dtypes[k]) {
      v.dtype = *body.output_dtypes[k];
      v.dtype_known = true;
    }
  }
}

void append(std::vector<int>& to, const std::vector<int>& more) { to.insert(to.end(), more.begin(), more.end()); }

Status map_if(NodeContext& ctx) {
  int cond = ctx.input(0);
  auto then_body = ctx.body("then_branch", {});
  auto else_body = ctx.body("else_branch", {});
  if (!then_body || !else_body) return ctx.status();
  if (then_body->output_dtypes.size() != ctx.output_count() || else_body->output_dtypes.size() != ctx.output_count()) {
    return ctx.invalid("the branches have " + std::to_string(then_body->output_dtypes.size()) + " and " +
                       std::to_string(else_body->output_dtypes.size()) + " outputs, the node " +
                       std::to_string(ctx.output_count()));
  }
  std::vector<int> inputs{cond};
  append(inputs, then_body->captures);
  append(inputs, else_body->captures);
  std::vector<int> outputs = ctx.all_outputs();
  type_outputs_from(ctx, *then_body, 0, outputs);
  fb::ControlFlowAttrsT a;
  a.body_captures = {static_cast<int64_t>(then_body->captures.size()), static_cast<int64_t>(else_body->captures.size())};
  fb::OpT& op = ctx.emit(fb::OpType::If, std::move(inputs), std::move(outputs), std::move(a));
  op.subgraphs = {static_cast<uint32_t>(then_body->subgraph), static_cast<uint32_t>(else_body->subgraph)};
  return ctx.status();
}

Status map_loop(NodeContext& ctx) {
  // Body inputs: iteration number, condition, then one per carried value.
  std::vector<std::optional<DType>> formal{DType::I64, DType::Bool};
  for (size_t i = 2; i < ctx.input_count(); ++i) formal.push_back(ctx.input_dtype(i));
  auto body = ctx.body("body", formal);
  if (!body) return ctx.status();
  const size_t carried = ctx.input_count() >= 2 ? ctx.input_count() - 2 : 0;
  if (body->formal_inputs != 2 + carried) {
    return ctx.invalid("the body takes " + std::to_string(body->formal_inputs) + " inputs; a Loop with " +
                       std::to_string(carried) + " carried values gives it " + std::to_string(2 + carried));
  }
  if (body->output_dtypes.size() != 1 + ctx.output_count() || ctx.output_count() < carried) {
    return ctx.invalid("the body has " + std::to_string(body->output_dtypes.size()) + " outputs, the node " +
                       std::to_string(ctx.output_count()) + " (expected one more: the condition)");
  }
  std::vector<int> inputs{ctx.optional_input(0), ctx.optional_input(1)};
  for (size_t i = 2; i < ctx.input_count(); ++i) inputs.push_back(ctx.input(i));
  append(inputs, body->captures);
  std::vector<int> outputs = ctx.all_outputs();
  type_outputs_from(ctx, *body, 1, outputs);
  fb::ControlFlowAttrsT a;
  a.body_captures = {static_cast<int64_t>(body->captures.size())};
  fb::OpT& op = ctx.emit(fb::OpType::Loop, std::move(inputs), std::move(outputs), std::move(a));
  op.subgraphs = {static_cast<uint32_t>(body->subgraph)};
  return ctx.status();
}

// Opset 8's Scan carries a batch axis in front of every input and output
// (and optional sequence_lens): with batch 1 and every sequence full, it is
// opset 9's Scan on the inputs with that axis squeezed, outputs unsqueezed.
Status map_scan(NodeContext& ctx) {
  const bool batched = ctx.opset() < 9;
  const size_t first = batched ? 1 : 0;  // opset 8: input 0 is sequence_lens
  if (batched && ctx.has_input(0)) return ctx.unsupported("Scan of opset 8 with sequence_lens is not supported");
  const size_t n_in = ctx.input_count() - first;
  fb::ControlFlowAttrsT a;
  a.num_scan_inputs = ctx.attr_int("num_scan_inputs", 0);
  const int64_t scanned = a.num_scan_inputs;
  if (scanned < 1 || scanned > static_cast<int64_t>(n_in)) {
    return ctx.invalid("num_scan_inputs " + std::to_string(scanned) + " with " + std::to_string(n_in) + " inputs");
  }
  a.scan_input_axes = ctx.attr_ints("scan_input_axes");
  a.scan_input_directions = ctx.attr_ints(batched ? "directions" : "scan_input_directions");
  a.scan_output_axes = ctx.attr_ints("scan_output_axes");
  a.scan_output_directions = ctx.attr_ints("scan_output_directions");
  std::vector<int> inputs;
  const int batch_axis = batched ? ctx.constant_i64({0}, "batch_axis") : -1;
  for (size_t i = first; i < ctx.input_count(); ++i) {
    int v = ctx.input(i);
    if (v >= 0 && batched) {
      const Value& value = ctx.value(v);
      if (!value.rank_known || value.shape.empty() || value.shape[0] != 1) {
        return ctx.unsupported("Scan of opset 8 needs batch 1; input " + std::to_string(i) + " is " +
                               (value.rank_known ? shape_to_string(value.shape) : std::string("of unknown shape")));
      }
      const int squeezed = ctx.temp("unbatched_" + std::to_string(i));
      ctx.emit(fb::OpType::Squeeze, {v, batch_axis}, {squeezed});
      v = squeezed;
    }
    inputs.push_back(v);
  }
  std::vector<std::optional<DType>> formal;
  for (size_t i = first; i < ctx.input_count(); ++i) formal.push_back(ctx.input_dtype(i));
  auto body = ctx.body("body", formal);
  if (!body) return ctx.status();
  if (body->formal_inputs != n_in || body->output_dtypes.size() != ctx.output_count()) {
    return ctx.invalid("the body has " + std::to_string(body->formal_inputs) + " inputs and " +
                       std::to_string(body->output_dtypes.size()) + " outputs, the node " + std::to_string(n_in) +
                       " and " + std::to_string(ctx.output_count()));
  }
  append(inputs, body->captures);
  std::vector<int> outputs = ctx.all_outputs();
  std::vector<int> scan_outputs = outputs;
  if (batched) {
    for (size_t k = 0; k < outputs.size(); ++k) scan_outputs[k] = ctx.temp("unbatched_output_" + std::to_string(k));
  }
  type_outputs_from(ctx, *body, 0, scan_outputs);
  type_outputs_from(ctx, *body, 0, outputs);
  a.body_captures = {static_cast<int64_t>(body->captures.size())};
  fb::OpT& op = ctx.emit(fb::OpType::Scan, std::move(inputs), scan_outputs, std::move(a));
  op.subgraphs = {static_cast<uint32_t>(body->subgraph)};
  if (batched) {
    for (size_t k = 0; k < outputs.size(); ++k) ctx.emit(fb::OpType::Unsqueeze, {scan_outputs[k], batch_axis}, {outputs[k]});
  }
  return ctx.status();
}

}  // namespace

MOTE_ONNX_OP(If, map_if);
MOTE_ONNX_OP(Loop, map_loop);
MOTE_ONNX_OP(Scan, map_scan);

}  // namespace mote::convert
