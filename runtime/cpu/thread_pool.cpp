#include "runtime/cpu/thread_pool.hpp"

#include <algorithm>

#include "runtime/cpu/denormals.hpp"

namespace mote {

namespace {
// Spin iterations before a worker goes to sleep. About 50 microseconds on a
// current x86 core: long enough to catch the next kernel of a model.
constexpr int kSpinIterations = 20000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  shares_ = std::vector<Share>(static_cast<size_t>(threads));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::drain(const std::function<void(int64_t)>& fn, int64_t index) {
  const size_t threads = shares_.size();
  int64_t done = 0;
  for (size_t k = 0; k < threads; ++k) {
    Share& share = shares_[(static_cast<size_t>(index) + k) % threads];
    for (;;) {
      const int64_t task = share.next.fetch_add(1, std::memory_order_relaxed);
      if (task >= share.end) break;
      fn(task);
      ++done;
    }
  }
  // Counted once per thread, not per task: the counter's cache line is the
  // one both cores write.
  if (done > 0) done_tasks_.fetch_add(done, std::memory_order_acq_rel);
}

void ThreadPool::worker_loop(int64_t index) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t gen = generation_.load(std::memory_order_acquire);
    for (int spin = 0; gen == seen && spin < kSpinIterations; ++spin) {
      cpu_relax();
      gen = generation_.load(std::memory_order_acquire);
    }
    if (gen == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      gen = generation_.load(std::memory_order_acquire);
    }
    seen = gen;
    const std::function<void(int64_t)>* job = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
      job = job_;
      // Counted under the lock so run() cannot return, and a next job cannot
      // reset the task counters, while this worker still holds `job`.
      if (job) active_workers_.fetch_add(1, std::memory_order_relaxed);
    }
    if (job) {
      // Each task runs under its caller's floating-point mode (denormals.hpp).
      if (cpu::fp_control() != job_fp_control_) cpu::set_fp_control(job_fp_control_);
      drain(*job, index);
      active_workers_.fetch_sub(1, std::memory_order_release);
    }
  }
}

void ThreadPool::run(int64_t tasks, const std::function<void(int64_t)>& fn) {
  if (tasks <= 0) return;
  if (workers_.empty() || tasks == 1) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &fn;
    job_fp_control_ = cpu::fp_control();
    const auto threads = static_cast<int64_t>(shares_.size());
    for (int64_t i = 0; i < threads; ++i) {
      shares_[static_cast<size_t>(i)].next.store(i * tasks / threads, std::memory_order_relaxed);
      shares_[static_cast<size_t>(i)].end = (i + 1) * tasks / threads;
    }
    done_tasks_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(fn, 0);
  while (done_tasks_.load(std::memory_order_acquire) < tasks) cpu_relax();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = nullptr;
  }
  while (active_workers_.load(std::memory_order_acquire) != 0) cpu_relax();
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  int64_t max_chunks = std::max<int64_t>(1, n / grain);
  int64_t chunks = std::min<int64_t>(max_chunks, static_cast<int64_t>(size()) * 4);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  int64_t step = (n + chunks - 1) / chunks;
  run(chunks, [&](int64_t c) {
    int64_t begin = c * step;
    int64_t end = std::min(n, begin + step);
    if (begin < end) fn(begin, end);
  });
}

}  // namespace mote
