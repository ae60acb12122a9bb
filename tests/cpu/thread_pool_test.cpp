// The thread pool runs every task of a job exactly once, whichever thread
// takes it: each thread takes its own share of the tasks first and then
// helps with the others' (thread_pool.hpp), so shares emptied by two threads
// at once, jobs of fewer tasks than threads, and jobs back to back must
// neither skip nor repeat a task.
#include "runtime/cpu/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace mote {
namespace {

TEST(ThreadPool, RunsEveryTaskOnce) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (int64_t tasks : {0, 1, 2, 3, 5, 7, 64, 1001}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
        pool.run(tasks, [&](int64_t t) { runs[static_cast<size_t>(t)].fetch_add(1); });
        for (int64_t t = 0; t < tasks; ++t) {
          ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1)
              << "task " << t << " of " << tasks << ", " << threads << " threads, repeat " << repeat;
        }
      }
    }
  }
}

// Uneven tasks: a thread whose share is slow leaves the rest of it to the
// others, which must still run each task once.
TEST(ThreadPool, UnevenTasksRunOnce) {
  ThreadPool pool(2);
  for (int repeat = 0; repeat < 20; ++repeat) {
    std::vector<std::atomic<int>> runs(40);
    pool.run(40, [&](int64_t t) {
      if (t < 4) std::this_thread::sleep_for(std::chrono::microseconds(200));  // the first share's start is slow
      runs[static_cast<size_t>(t)].fetch_add(1);
    });
    for (size_t t = 0; t < runs.size(); ++t) ASSERT_EQ(runs[t].load(), 1) << "task " << t;
  }
}

TEST(ThreadPool, ParallelForCoversTheRangeOnce) {
  ThreadPool pool(2);
  for (int64_t n : {1, 9, 100, 4097}) {
    for (int64_t grain : {1, 7, 5000}) {
      std::vector<std::atomic<int>> covered(static_cast<size_t>(n));
      pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) covered[static_cast<size_t>(i)].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(covered[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n << ", grain " << grain;
      }
    }
  }
}

}  // namespace
}  // namespace mote
