// Session: runs a Model. prepare() plans for a set of input shapes (shape
// inference, constant folding, memory plan, kernel set-up); run() executes
// and re-plans by itself when the input shapes change.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mote/model.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"

namespace mote {

enum class Backend {
  kCpu,        // optimised CPU kernels
  kReference,  // plain reference kernels: slow, for checking results
};

const char* backend_name(Backend backend);
// Parses "cpu" / "reference"; error for anything else.
Result<Backend> parse_backend(const std::string& name);

struct SessionOptions {
  Backend backend = Backend::kCpu;
  // Threads for CPU kernels; 0 = one per hardware thread.
  int threads = 0;
};

// What prepare() decided, for tools and tests.
struct PlanStats {
  // Bytes of the one arena holding every planned intermediate.
  uint64_t arena_bytes = 0;
  // What those intermediates would take without sharing memory.
  uint64_t unshared_bytes = 0;
  // Bytes of constants folded at prepare time (weights converted, shape chains).
  uint64_t folded_bytes = 0;
  int ops_total = 0;
  int ops_folded = 0;   // computed once at prepare
  int ops_dynamic = 0;  // shapes known only at run time
  double prepare_ms = 0;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Model& model() const;
  const SessionOptions& options() const;

  // Plans for these input shapes, given by input name; inputs left out keep
  // the model's declared shape (which must then be static).
  Status prepare(const std::map<std::string, Shape>& input_shapes = {});

  // Runs with inputs in the model's input order; returns the outputs in the
  // model's output order. The outputs own their memory.
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs);
  // Same, by name.
  Result<std::map<std::string, Tensor>> run(const std::map<std::string, Tensor>& inputs);

  // Threads the CPU kernels use (the resolved value of options().threads).
  int thread_count() const;

  // Valid after prepare (or the first run).
  const PlanStats& plan_stats() const;

 private:
  Session();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote
