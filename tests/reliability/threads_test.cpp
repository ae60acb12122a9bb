// The thread-safety contract (docs/runtime.md, "Threads"): one Model shared
// by many sessions, each session used by one thread at a time, CPU and
// Vulkan sessions side by side. Every threaded output must equal, bit for
// bit, the output of the same session kind run alone. The ThreadSanitizer
// build (MOTE_SANITIZE=thread) runs these tests too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "examples/model_zoo/model_zoo.hpp"
#include "mote/mote.hpp"
#include "tests/support/model_util.hpp"
#include "tests/support/op_test_util.hpp"
#if MOTE_HAS_VULKAN
#include "tests/vulkan/vk_test_util.hpp"
#endif

namespace mote::test {
namespace {

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 200;
constexpr int kInputs = 4;  // distinct inputs, cycled

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.bytes() == b.bytes() && std::memcmp(a.raw(), b.raw(), a.bytes()) == 0;
}

struct Workload {
  std::shared_ptr<const Model> model = load_built(zoo::small_cnn(), "small_cnn.mote");
  std::vector<Tensor> inputs;
  Workload() {
    for (int i = 0; i < kInputs; ++i) inputs.push_back(random_tensor(DType::F32, {1, 1, 28, 28}, 100 + i));
  }
  // The outputs of one session of this kind, run alone on the main thread.
  std::vector<Tensor> expected(const SessionOptions& options) const {
    auto session = Session::create(model, options);
    EXPECT_TRUE(session.ok()) << session.status().to_string();
    std::vector<Tensor> outs;
    for (const Tensor& x : inputs) {
      auto out = (*session)->run({x});
      EXPECT_TRUE(out.ok()) << out.status().to_string();
      outs.push_back(out.ok() ? (*out)[0] : Tensor());
    }
    return outs;
  }
};

SessionOptions cpu_options() {
  SessionOptions o;
  o.threads = 1;
  return o;
}

SessionOptions vulkan_options() {
  SessionOptions o = cpu_options();
  o.backend = Backend::kVulkan;
  o.min_gpu_island_elements = 0;
  return o;
}

// Runs `kinds[t % kinds.size()]` on thread t, each thread with its own
// session of the shared model, and counts outputs that differ from `expected`.
void run_threads(const Workload& w, const std::vector<SessionOptions>& kinds,
                 const std::vector<std::vector<Tensor>>& expected) {
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      size_t kind = static_cast<size_t>(t) % kinds.size();
      auto session = Session::create(w.model, kinds[kind]);
      if (!session.ok()) {
        failures++;
        first_error[static_cast<size_t>(t)] = session.status().to_string();
        return;
      }
      for (int r = 0; r < kRunsPerThread; ++r) {
        size_t i = static_cast<size_t>(r + t) % kInputs;
        auto out = (*session)->run({w.inputs[i]});
        if (!out.ok()) {
          if (failures++ == 0) first_error[static_cast<size_t>(t)] = out.status().to_string();
          continue;
        }
        if (!same_bits((*out)[0], expected[kind][i])) mismatches++;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::string& e : first_error) EXPECT_TRUE(e.empty()) << e;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0) << "of " << kThreads * kRunsPerThread << " runs";
}

TEST(Threads, SessionsOfOneModelOnTheCpu) {
  Workload w;
  run_threads(w, {cpu_options()}, {w.expected(cpu_options())});
}

TEST(Threads, SessionsWithTwoPoolThreadsEach) {
  Workload w;
  SessionOptions two = cpu_options();
  two.threads = 2;
  run_threads(w, {two}, {w.expected(two)});
}

#if MOTE_HAS_VULKAN
TEST(Threads, CpuAndVulkanSessionsMixed) {
  MOTE_REQUIRE_VULKAN();
  Workload w;
  run_threads(w, {cpu_options(), vulkan_options()}, {w.expected(cpu_options()), w.expected(vulkan_options())});
}
#endif

TEST(Threads, OneSessionFromTwoThreadsIsRefusedNotCorrupted) {
  // Two threads hammer one session. Overlapping calls must be refused with
  // the contract's error; every call that ran must give the right output.
  Workload w;
  std::vector<Tensor> expected = w.expected(cpu_options());
  auto session = Session::create(w.model, cpu_options());
  ASSERT_TRUE(session.ok());
  std::atomic<int> refused{0}, wrong{0}, other_errors{0};
  std::string refusal;
  std::mutex refusal_mutex;
  // Each thread makes at least 300 calls, and goes on (up to 20 s) until some
  // call was refused, so a loaded machine that happens to serialise the two
  // threads for a while does not leave the check unexercised.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto hammer = [&](int offset) {
    for (int r = 0; r < 300 || (refused.load() == 0 && std::chrono::steady_clock::now() < deadline); ++r) {
      size_t i = static_cast<size_t>(r + offset) % kInputs;
      auto out = (*session)->run({w.inputs[i]});
      if (out.ok()) {
        if (!same_bits((*out)[0], expected[i])) wrong++;
      } else if (out.status().message().find("in use by another thread") != std::string::npos) {
        if (refused++ == 0) {
          std::lock_guard<std::mutex> lock(refusal_mutex);
          refusal = out.status().message();
        }
      } else {
        other_errors++;
      }
    }
  };
  std::thread a(hammer, 0), b(hammer, 1);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(other_errors.load(), 0);
  EXPECT_GT(refused.load(), 0) << "no call overlapped; the check went unexercised";
  EXPECT_NE(refusal.find("Session::run"), std::string::npos) << refusal;
}

}  // namespace
}  // namespace mote::test
