// run_in_workers: a job that crashes, hangs or exits takes only itself with
// it; the jobs after it still run, in order, in a new worker.
#include "tests/conformance/isolate.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace mote::conformance {
namespace {

TEST(RunInWorkers, EachFailureIsItsOwnJobAndTheRestStillRun) {
  const auto job = [](size_t i) {
    if (i == 1) std::abort();  // SIGABRT: not a signal the sanitizers take over
    if (i == 3) pause();       // until the timeout's SIGALRM
    if (i == 5) _exit(3);
    return JobOutput{"job " + std::to_string(i) + " in process " + std::to_string(getpid())};
  };
  std::vector<size_t> order;
  std::vector<JobResult> results;
  run_in_workers(7, job, /*timeout_s=*/1, [&](size_t i, const JobResult& r) {
    order.push_back(i);
    results.push_back(r);
  });
  ASSERT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
  for (size_t i : {0, 2, 4, 6}) {
    EXPECT_TRUE(results[i].completed) << i;
    EXPECT_EQ(results[i].text.rfind("job " + std::to_string(i) + " in process ", 0), 0u) << results[i].text;
    EXPECT_EQ(results[i].text.find("in process " + std::to_string(getpid())), std::string::npos)
        << "job " << i << " ran in the calling process";
  }
  EXPECT_FALSE(results[1].completed);
  EXPECT_EQ(results[1].text.rfind("crashed: signal 6 ", 0), 0u) << results[1].text;
  EXPECT_FALSE(results[3].completed);
  EXPECT_EQ(results[3].text, "timed out after 1 s");
  EXPECT_FALSE(results[5].completed);
  EXPECT_EQ(results[5].text, "the test process exited (status 3) without a result");
  // Each death ends its worker: the jobs on either side ran in different ones.
  const auto pid_of = [&](size_t i) { return results[i].text.substr(results[i].text.rfind(' ') + 1); };
  EXPECT_NE(pid_of(0), pid_of(2));
  EXPECT_NE(pid_of(2), pid_of(4));
  EXPECT_NE(pid_of(4), pid_of(6));
}

TEST(RunInWorkers, ConsecutiveJobsShareOneWorkerUntilOneRetiresIt) {
  // Job 2 asks for a fresh process after it (as a test whose GPU faulted
  // does): it still completes, and jobs 3 and 4 share the next worker.
  std::vector<std::string> pids;
  run_in_workers(
      5,
      [](size_t i) {
        return JobOutput{std::to_string(getpid()), i == 2};
      },
      5,
      [&](size_t, const JobResult& r) {
        ASSERT_TRUE(r.completed) << r.text;
        pids.push_back(r.text);
      });
  ASSERT_EQ(pids.size(), 5u);
  EXPECT_EQ(pids[1], pids[0]);
  EXPECT_EQ(pids[2], pids[0]);
  EXPECT_NE(pids[3], pids[0]);
  EXPECT_EQ(pids[4], pids[3]);
  EXPECT_NE(pids[0], std::to_string(getpid()));
  EXPECT_NE(pids[3], std::to_string(getpid()));
}

}  // namespace
}  // namespace mote::conformance
