// A small fork-join thread pool for CPU kernels.
//
// Kernels split their work into `tasks` independent pieces and call run();
// the calling thread takes part, so a pool of N threads starts N-1 workers.
// Workers spin briefly before sleeping: kernels are issued back to back in a
// model, and waking a sleeping thread costs tens of microseconds.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mote {

class ThreadPool {
 public:
  // threads <= 0 means one per hardware thread.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(task) for every task in [0, tasks), spread over the pool; returns
  // when all are done. Not reentrant: fn must not call run() on the same pool.
  void run(int64_t tasks, const std::function<void(int64_t task)>& fn);

  // Splits [0, n) into at most size()*4 contiguous ranges of at least
  // `grain` elements and calls fn(begin, end) for each.
  void parallel_for(int64_t n, int64_t grain,
                    const std::function<void(int64_t begin, int64_t end)>& fn);

 private:
  void worker_loop();
  void drain(const std::function<void(int64_t)>& fn);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t job_tasks_ = 0;
  uint64_t job_fp_control_ = 0;  // the caller's floating-point mode
  std::atomic<int64_t> next_task_{0};
  std::atomic<int64_t> done_tasks_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> active_workers_{0};
  bool stop_ = false;
};

}  // namespace mote
