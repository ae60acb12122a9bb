// If, Loop and Scan: ops whose work is a subgraph (a body) run zero or more
// times. The plan makes each of them a dynamic step holding one ControlFlow;
// a body gets its own ExecutionPlan, built for the shapes its inputs have and
// kept while they stay the same, so its ops are placed (Vulkan or CPU) and
// planned like a model's.
//
// Operand order, as the converter writes it (mote.fbs, ControlFlowAttrs):
//   If   inputs  [cond, captures of then..., captures of else...]
//        bodies  [then, else]; body inputs: its captures; outputs: the op's
//   Loop inputs  [M (or omitted), cond (or omitted), carried x N, captures]
//        body inputs  [iteration (i64 scalar), cond (bool scalar), carried x N, captures]
//        body outputs [cond, carried x N, scan x K]; op outputs [carried x N, scan x K]
//   Scan inputs  [state x N, scanned x num_scan_inputs, captures]
//        body inputs  [state x N, one slice of each scanned input, captures]
//        body outputs [state x N, scan x K]; op outputs [state x N, scan x K]
// Scan outputs are the per-iteration values stacked along a new axis.
#pragma once

#include <memory>
#include <vector>

#include "mote/model.hpp"
#include "mote/session.hpp"

namespace mote {

class ExecutionPlan;
class ThreadPool;

bool is_control_flow(fb::OpType type);

class ControlFlow {
 public:
  // Checks the op's operand counts against its bodies.
  static Result<std::unique_ptr<ControlFlow>> create(const Model& model, const fb::GraphT& graph, const fb::OpT& op,
                                                     const SessionOptions& options);
  ~ControlFlow();

  // `inputs` in op input order, nullptr for an omitted one; returns the op's
  // outputs, owned.
  Result<std::vector<Tensor>> run(const std::vector<const Tensor*>& inputs, ThreadPool& pool);

 private:
  struct Body {
    const fb::GraphT* graph = nullptr;
    int captures = 0;
    std::unique_ptr<ExecutionPlan> plan;  // for the input shapes of the last run
  };
  ControlFlow(const Model& model, const fb::OpT& op, const SessionOptions& options);

  Result<std::vector<Tensor>> run_body(Body& body, const std::vector<Tensor>& inputs, ThreadPool& pool);
  Result<std::vector<Tensor>> run_if(const std::vector<const Tensor*>& inputs, ThreadPool& pool);
  Result<std::vector<Tensor>> run_loop(const std::vector<const Tensor*>& inputs, ThreadPool& pool);
  Result<std::vector<Tensor>> run_scan(const std::vector<const Tensor*>& inputs, ThreadPool& pool);
  // The op's last inputs that feed body `b`'s captures.
  std::vector<Tensor> captures_of(size_t b, const std::vector<const Tensor*>& inputs) const;

  const Model& model_;
  const fb::OpT& op_;
  SessionOptions options_;
  std::vector<Body> bodies_;
  int total_captures_ = 0;
};

}  // namespace mote
