// The editable graph a converter builds and its passes rewrite before the
// .mote file is written: ops are the schema's own fb::OpT (so shape functions
// and reference kernels run on them unchanged), tensors are Values that may
// own constant data.
//
// Ops are kept in a valid execution order. Passes remove an op by resetting
// its pointer and call compact() when done, which drops the holes and every
// value nothing refers to any more.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mote/attrs.hpp"
#include "mote/tensor.hpp"

namespace mote::convert {

// One tensor: a graph input, a constant or an op output.
struct Value {
  std::string name;
  // What is known before run time. A rank-known shape may still hold -1 for
  // dynamic dimensions.
  bool dtype_known = false;
  DType dtype = DType::F32;
  bool rank_known = false;
  Shape shape;
  // The constant's contents (owned); empty for inputs and op outputs.
  std::optional<Tensor> data;

  bool is_constant() const { return data.has_value(); }
  // Rank and every dimension known.
  bool shape_static() const;
  void set_info(DType d, Shape s) {
    dtype_known = true;
    dtype = d;
    rank_known = true;
    shape = std::move(s);
  }
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<std::unique_ptr<fb::OpT>> ops;  // execution order; null = removed
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string producer;
  // Bodies of this graph's If, Loop and Scan ops (fb::OpT::subgraphs
  // indexes them); each indexes its own values.
  std::vector<std::unique_ptr<Graph>> subgraphs;

  // Tensor names and op names are separate namespaces: an op may share its
  // name with a tensor (exporters often name a node after its output).
  //
  // The source model's tensor names are reserved before import: a source
  // name is taken exactly as given, and a derived value (a helper a mapper or
  // pass adds) gets a name no source tensor uses, so graph inputs, outputs
  // and surviving intermediates keep the names the user knows.
  void reserve_source_names(const std::vector<std::string>& names);

  // Each returns the new value's index.
  // A value named by the source model (exact unless already taken).
  int add_value(const std::string& name);
  int add_input(const std::string& name, DType dtype, std::optional<Shape> shape);
  int add_constant(const std::string& name, Tensor data);
  // A value the conversion adds: `base`, or `base_2`, `base_3`..., whichever
  // neither an existing value nor a source name uses.
  int add_derived_value(const std::string& base);
  int add_derived_constant(const std::string& base, Tensor data);
  // Appends an op reading `inputs` (-1 = omitted optional input) and writing
  // `outputs`; the name is made unique among op names.
  fb::OpT& add_op(fb::OpType type, const std::string& name, std::vector<int> inputs, std::vector<int> outputs);
  // add_op, placed at position `at` of the op list instead of the end (the
  // caller keeps the order valid: after the producers of `inputs`).
  fb::OpT& insert_op(size_t at, fb::OpType type, const std::string& name, std::vector<int> inputs,
                     std::vector<int> outputs);

  // Per value: the index of the op writing it, or -1.
  std::vector<int> producers() const;
  // Per value: the ops reading it, one entry per use.
  std::vector<std::vector<int>> consumers() const;
  bool is_output(int value) const;
  bool is_input(int value) const;
  // Number of live ops.
  size_t op_count() const;

  // Op inputs reading `from` read `to` instead (graph outputs unchanged).
  void replace_uses(int from, int to);
  // Drops removed ops, unreferenced values and bodies, renumbering what is
  // left.
  void compact();

  // "Conv 'conv1'" for messages.
  static std::string op_label(const fb::OpT& op);

 private:
  // Claims `base` (or base_2, base_3...) in `used`, skipping `avoid`.
  static std::string claim_name(const std::string& base, std::unordered_set<std::string>& used,
                                const std::unordered_set<std::string>* avoid);
  int push_value(std::string name);
  int make_constant(int index, Tensor data);

  std::unordered_set<std::string> value_names_;
  std::unordered_set<std::string> op_names_;
  std::unordered_set<std::string> source_names_;
};

}  // namespace mote::convert
