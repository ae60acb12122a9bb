// The error discipline every Mote tool follows: parse the command line with
// CLI11, run, and turn any failure (a bad option, an error Status, even an
// exception such as std::bad_alloc) into exactly one line
// "<tool>: <message>" on stderr and a non-zero exit code. --help prints the
// usage and exits 0.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "mote/status.hpp"

namespace mote::tools {

// Exit codes: 0 success, 1 a failure while running, 2 a bad command line.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<Status()>& body);

}  // namespace mote::tools
