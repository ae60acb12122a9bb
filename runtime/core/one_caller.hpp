// Catches one Session (or TrainingSession) used from two threads at once.
// A session owns one arena and one plan, so two overlapping calls would
// write the same memory; instead the second caller gets an error and the
// first one finishes untouched. The check is one atomic exchange per call
// (nanoseconds against a run's microseconds at least), so it stays on in
// release builds too, where such a bug would otherwise be silent corruption.
#pragma once

#include <atomic>
#include <string>

#include "mote/status.hpp"

namespace mote {

class OneCaller {
 public:
  // Held for the length of one call; acquired() is false when another thread
  // was inside.
  class Scope {
   public:
    explicit Scope(const OneCaller& owner)
        : owner_(owner), acquired_(!owner.busy_.exchange(true, std::memory_order_acquire)) {}
    ~Scope() {
      if (acquired_) owner_.busy_.store(false, std::memory_order_release);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    bool acquired() const { return acquired_; }

   private:
    const OneCaller& owner_;
    bool acquired_;
  };

  // The error for the caller that found the session busy; `call` names the
  // entry point ("Session::run").
  static Status busy_error(const std::string& call) {
    return invalid_argument(call + ": this session is in use by another thread. A session runs one call at a time; "
                                   "give each thread its own session of the shared Model (docs/runtime.md, Threads)");
  }

 private:
  mutable std::atomic<bool> busy_{false};
};

}  // namespace mote
