#include "tests/conformance/isolate.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace mote::conformance {

Outcome run_isolated(const std::function<Outcome()>& fn, int timeout_s) {
  int fds[2];
  if (pipe(fds) != 0) return fn();  // no pipe: run in-process rather than not at all
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return fn();
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(static_cast<unsigned>(timeout_s));  // SIGALRM ends a hung test
    Outcome o = fn();
    // First byte: P passed, G passed with GPU ops, F failed.
    std::string msg = (o.passed ? (o.used_gpu ? "G" : "P") : "F") + o.reason;
    size_t off = 0;
    while (off < msg.size()) {
      ssize_t n = write(fds[1], msg.data() + off, msg.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGALRM) return {false, "timed out after " + std::to_string(timeout_s) + " s"};
    return {false, std::string("crashed: signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")"};
  }
  if (msg.empty()) return {false, "the test process exited without a result"};
  return {msg[0] != 'F', msg.substr(1), msg[0] == 'G'};
}

}  // namespace mote::conformance
