#include "tests/conformance/isolate.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace mote::conformance {
namespace {

// Each job's result goes up the pipe as a frame: a header word (the text's
// length times two, plus one if the worker retires after it), then the text.
// A header claiming more than this is not one a worker wrote.
constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 26;

// read() or write() until all `size` bytes have moved; false at the end of
// the pipe or on an error.
template <class Byte, class Io>
bool move_all(Io io, int fd, Byte* data, size_t size) {
  while (size > 0) {
    const ssize_t n = io(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}
bool write_all(int fd, const void* data, size_t size) {
  return move_all(write, fd, static_cast<const char*>(data), size);
}
bool read_all(int fd, void* data, size_t size) { return move_all(read, fd, static_cast<char*>(data), size); }

[[noreturn]] void worker(int fd, size_t first, size_t count, const std::function<JobOutput(size_t)>& job,
                         int timeout_s) {
  for (size_t i = first; i < count; ++i) {
    alarm(static_cast<unsigned>(timeout_s));  // SIGALRM ends a hung job, and this worker with it
    const JobOutput out = job(i);
    alarm(0);
    std::fflush(stdout);
    const uint64_t header = uint64_t{out.text.size()} * 2 + (out.retire_worker ? 1 : 0);
    if (!write_all(fd, &header, sizeof header) || !write_all(fd, out.text.data(), out.text.size())) _exit(1);
    if (out.retire_worker) _exit(0);
  }
  _exit(0);
}

// Why a worker that stopped sending ended, from its wait status.
std::string death(int status, int timeout_s) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGALRM) return "timed out after " + std::to_string(timeout_s) + " s";
    return std::string("crashed: signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "the test process exited (status " + std::to_string(WEXITSTATUS(status)) + ") without a result";
}

}  // namespace

void run_in_workers(size_t count, const std::function<JobOutput(size_t)>& job, int timeout_s,
                    const std::function<void(size_t, const JobResult&)>& on_result) {
  size_t next = 0;
  while (next < count) {
    int fds[2] = {-1, -1};
    std::fflush(stdout);
    std::fflush(stderr);
    // Close-on-exec: a program a job starts must not hold the write end, or
    // the end of a worker would not end the parent's reads.
    const pid_t pid = pipe2(fds, O_CLOEXEC) == 0 ? fork() : -1;
    if (pid < 0) {  // no pipe or no process: run in this one rather than not at all
      for (int fd : fds) {
        if (fd >= 0) close(fd);
      }
      for (; next < count; ++next) on_result(next, {true, job(next).text});
      return;
    }
    if (pid == 0) {
      close(fds[0]);
      worker(fds[1], next, count, job, timeout_s);
    }
    close(fds[1]);
    bool retired = false;
    uint64_t header = 0;
    while (next < count && !retired && read_all(fds[0], &header, sizeof header) && header / 2 <= kMaxFrameBytes) {
      std::string text(header / 2, '\0');
      if (!read_all(fds[0], text.data(), text.size())) break;
      on_result(next++, {true, std::move(text)});
      retired = header % 2 != 0;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!retired && next < count) on_result(next++, {false, death(status, timeout_s)});
  }
}

}  // namespace mote::conformance
