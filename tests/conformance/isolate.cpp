#include "tests/conformance/isolate.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace mote::conformance {
namespace {

// Each job's result goes up the pipe as a frame: its length (8 bytes), then
// its bytes.
bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void worker(int fd, size_t first, size_t count, const std::function<std::string(size_t)>& job,
                         int timeout_s) {
  for (size_t i = first; i < count; ++i) {
    alarm(static_cast<unsigned>(timeout_s));  // SIGALRM ends a hung job, and this worker with it
    const std::string text = job(i);
    alarm(0);
    std::fflush(stdout);
    const uint64_t size = text.size();
    if (!write_all(fd, &size, sizeof size) || !write_all(fd, text.data(), text.size())) _exit(1);
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

void run_in_workers(size_t count, const std::function<std::string(size_t)>& job, int timeout_s,
                    const std::function<void(size_t, const JobResult&)>& on_result) {
  size_t next = 0;
  while (next < count) {
    int fds[2];
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = pipe(fds) == 0 ? fork() : -1;
    if (pid < 0) {  // no pipe or process: run in this one rather than not at all
      for (; next < count; ++next) on_result(next, {true, job(next)});
      return;
    }
    if (pid == 0) {
      close(fds[0]);
      worker(fds[1], next, count, job, timeout_s);
    }
    close(fds[1]);
    uint64_t size = 0;
    while (next < count && read_all(fds[0], &size, sizeof size)) {
      std::string text(size, '\0');
      if (!read_all(fds[0], text.data(), text.size())) break;
      on_result(next++, {true, std::move(text)});
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (next < count) on_result(next++, {false, death(status, timeout_s)});
  }
}

}  // namespace mote::conformance
