// The nodes an import could not convert, collected so the user sees all of
// them in one message: grouped by op type (most frequent first), each node
// with its path in the model ("If 'x' / then_branch / LSTM 'y'").
#pragma once

#include <map>
#include <string>
#include <vector>

namespace mote::convert {

class UnsupportedList {
 public:
  void add(const std::string& op_type, const std::string& label, const std::string& reason);
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  // "<file>: 3 unsupported nodes of 2 op types:\n  LSTM (2 nodes):\n    ..."
  std::string message(const std::string& file) const;

 private:
  std::map<std::string, std::vector<std::string>> by_type_;  // op type -> "label: reason"
  std::vector<std::string> type_order_;                      // first-seen order, for ties
  size_t count_ = 0;
};

}  // namespace mote::convert
