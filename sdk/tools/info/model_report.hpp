// The text mote-info prints about one model: what is in the file, and
// (optionally) what a CPU session plans for it.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "mote/model.hpp"
#include "mote/session.hpp"

namespace mote::tools {

// File size, schema version, producer, inputs and outputs, op histogram,
// parameter count, weight bytes and metadata.
void print_model_report(std::FILE* out, const std::string& path, const Model& model);

// Prepares a CPU session for `shapes` (the declared shapes for inputs left
// out) and prints its PlanStats.
Status print_plan_report(std::FILE* out, std::shared_ptr<const Model> model,
                         const std::map<std::string, Shape>& shapes, int threads);

}  // namespace mote::tools
