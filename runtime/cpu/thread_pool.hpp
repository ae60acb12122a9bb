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
  void worker_loop(int64_t index);
  void drain(const std::function<void(int64_t)>& fn, int64_t index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(int64_t)>* job_ = nullptr;
  uint64_t job_fp_control_ = 0;  // the caller's floating-point mode
  // Thread i's share of a job's tasks, [next, end): it takes its own first,
  // in order, then helps with the others'. Consecutive ops split their
  // outputs in the same order, so a thread tends to read what it wrote
  // from its own cache, and a thread that wakes late still has its work
  // taken over. Against one counter that both threads claimed tasks from
  // (mote-bench, 2 threads, alternating builds): in the host's slow spells,
  // when a round trip between the cores takes 400 ns instead of 80,
  // MobileNetV2 3.78 -> 3.45-3.56 ms, ResNet-18 8.9 -> 8.2, SqueezeNet 3.0
  // -> 2.65, EfficientNet-B0 5.45 -> 4.87; level in the fast ones.
  // `end` is written by run() under the mutex before a job starts and read
  // by drain() without it: no worker is in drain() then, since run()
  // returns only when active_workers_ is back to 0.
  struct alignas(64) Share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  std::vector<Share> shares_;
  std::atomic<int64_t> done_tasks_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> active_workers_{0};
  bool stop_ = false;
};

}  // namespace mote
