#include "converters/common/passes.hpp"

namespace mote::convert {

PassLog::Entry& PassLog::entry(const std::string& pass) {
  for (Entry& e : entries_) {
    if (e.pass == pass) return e;
  }
  entries_.push_back({pass, {}, {}});
  return entries_.back();
}

void PassLog::count(const std::string& pass, const std::string& what, int64_t n) { entry(pass).counters[what] += n; }

void PassLog::note(const std::string& pass, const std::string& line) { entry(pass).notes.push_back(line); }

}  // namespace mote::convert
