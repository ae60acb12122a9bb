#include "converters/common/graph.hpp"

#include <algorithm>

#include "runtime/core/registry.hpp"

namespace mote::convert {

bool Value::shape_static() const {
  if (!rank_known) return false;
  return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d >= 0; });
}

std::string Graph::claim_name(const std::string& base, std::unordered_set<std::string>& used,
                              const std::unordered_set<std::string>* avoid) {
  std::string stem = base.empty() ? "t" : base;
  std::string name = stem;
  auto taken = [&](const std::string& n) { return used.count(n) || (avoid && avoid->count(n)); };
  for (int k = 2; taken(name); ++k) name = stem + "_" + std::to_string(k);
  used.insert(name);
  return name;
}

void Graph::reserve_source_names(const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (!n.empty()) source_names_.insert(n);
  }
}

int Graph::push_value(std::string name) {
  Value v;
  v.name = std::move(name);
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

int Graph::add_value(const std::string& name) { return push_value(claim_name(name, value_names_, nullptr)); }

int Graph::add_derived_value(const std::string& base) {
  return push_value(claim_name(base, value_names_, &source_names_));
}

int Graph::add_derived_constant(const std::string& base, Tensor data) {
  return make_constant(add_derived_value(base), std::move(data));
}

int Graph::add_input(const std::string& name, DType dtype, std::optional<Shape> shape) {
  int index = add_value(name);
  Value& v = values.back();
  v.dtype_known = true;
  v.dtype = dtype;
  if (shape) {
    v.rank_known = true;
    v.shape = std::move(*shape);
  }
  inputs.push_back(index);
  return index;
}

int Graph::add_constant(const std::string& name, Tensor data) {
  return make_constant(add_value(name), std::move(data));
}

int Graph::make_constant(int index, Tensor data) {
  Value& v = values[static_cast<size_t>(index)];
  v.set_info(data.dtype(), data.shape());
  v.data = std::move(data);
  return index;
}

fb::OpT& Graph::add_op(fb::OpType type, const std::string& name, std::vector<int> in, std::vector<int> out) {
  auto op = std::make_unique<fb::OpT>();
  op->type = type;
  op->name = claim_name(name.empty() ? std::string(op_type_name(type)) : name, op_names_, nullptr);
  op->inputs = std::move(in);
  op->outputs = std::move(out);
  ops.push_back(std::move(op));
  return *ops.back();
}

fb::OpT& Graph::insert_op(size_t at, fb::OpType type, const std::string& name, std::vector<int> in,
                          std::vector<int> out) {
  add_op(type, name, std::move(in), std::move(out));
  std::rotate(ops.begin() + static_cast<std::ptrdiff_t>(at), ops.end() - 1, ops.end());
  return *ops[at];
}

std::vector<int> Graph::producers() const {
  std::vector<int> result(values.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    for (int out : ops[i]->outputs) {
      if (out >= 0) result[static_cast<size_t>(out)] = static_cast<int>(i);
    }
  }
  return result;
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> result(values.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    for (int in : ops[i]->inputs) {
      if (in >= 0) result[static_cast<size_t>(in)].push_back(static_cast<int>(i));
    }
  }
  return result;
}

bool Graph::is_output(int value) const { return std::find(outputs.begin(), outputs.end(), value) != outputs.end(); }
bool Graph::is_input(int value) const { return std::find(inputs.begin(), inputs.end(), value) != inputs.end(); }

size_t Graph::op_count() const {
  return static_cast<size_t>(std::count_if(ops.begin(), ops.end(), [](const auto& op) { return op != nullptr; }));
}

void Graph::replace_uses(int from, int to) {
  for (auto& op : ops) {
    if (!op) continue;
    for (int& in : op->inputs) {
      if (in == from) in = to;
    }
  }
}

void Graph::compact() {
  ops.erase(std::remove(ops.begin(), ops.end(), nullptr), ops.end());
  std::vector<char> used(values.size(), 0);
  for (int v : inputs) used[static_cast<size_t>(v)] = 1;
  for (int v : outputs) used[static_cast<size_t>(v)] = 1;
  for (const auto& op : ops) {
    for (int v : op->inputs) {
      if (v >= 0) used[static_cast<size_t>(v)] = 1;
    }
    for (int v : op->outputs) {
      if (v >= 0) used[static_cast<size_t>(v)] = 1;
    }
  }
  std::vector<int> remap(values.size(), -1);
  std::vector<Value> kept;
  value_names_.clear();
  op_names_.clear();
  for (size_t i = 0; i < values.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<int>(kept.size());
    value_names_.insert(values[i].name);
    kept.push_back(std::move(values[i]));
  }
  values = std::move(kept);
  auto fix = [&](std::vector<int>& list) {
    for (int& v : list) {
      if (v >= 0) v = remap[static_cast<size_t>(v)];
    }
  };
  fix(inputs);
  fix(outputs);
  for (auto& op : ops) {
    op_names_.insert(op->name);
    fix(op->inputs);
    fix(op->outputs);
  }
  // Bodies no op names any more (a folded If's) go too.
  std::vector<int> body_remap(subgraphs.size(), -1);
  std::vector<std::unique_ptr<Graph>> kept_bodies;
  for (auto& op : ops) {
    for (uint32_t& b : op->subgraphs) {
      int& m = body_remap[b];
      if (m < 0) {
        m = static_cast<int>(kept_bodies.size());
        kept_bodies.push_back(std::move(subgraphs[b]));
      }
      b = static_cast<uint32_t>(m);
    }
  }
  subgraphs = std::move(kept_bodies);
}

std::string Graph::op_label(const fb::OpT& op) {
  return std::string(op_type_name(op.type)) + " '" + op.name + "'";
}

}  // namespace mote::convert
