// Runs the tests in a child process, so a crash or hang in one op's kernel is
// one failed test ("crashed: signal 11") instead of the end of the suite.
//
// One worker process runs test after test, rather than one process per test:
// a process's first Vulkan session (instance, device, lavapipe's LLVM) costs
// about 45 ms, most of a test's time, and the 1,399 typed tests took 65 s on
// lavapipe in a fork each against 1.5 s in-process. A worker that dies fails
// the test it was in, and a new one goes on with the next. Tests in one
// worker share its process: a job that leaves it unfit for the next (a lost
// Vulkan device, which a process keeps) retires the worker as it returns; one
// that corrupts memory unnoticed may still fail a later test in the same
// worker, which the sanitizer builds are there to catch.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace mote::conformance {

// What a job returns, in the worker.
struct JobOutput {
  std::string text;
  bool retire_worker = false;  // the next job gets a fresh process
};

// What came back for one job: its text, or why the worker died in it.
struct JobResult {
  bool completed = false;
  std::string text;  // the job's text, or "crashed: signal 11 (...)" / "timed out after N s"
};

// Runs job(0) ... job(count - 1), in order, in worker processes, and calls
// on_result(i, result) in this process as each one ends. A job still running
// after `timeout_s` counts as hung: its worker is killed. This process must
// not have started threads or a Vulkan instance (they do not survive a
// fork); the jobs may.
void run_in_workers(size_t count, const std::function<JobOutput(size_t)>& job, int timeout_s,
                    const std::function<void(size_t, const JobResult&)>& on_result);

}  // namespace mote::conformance
