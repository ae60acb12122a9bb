#include "sdk/tools/common/tool_main.hpp"

#include <cstdio>
#include <exception>
#include <new>

#include "sdk/tools/common/text.hpp"

namespace mote::tools {
namespace {

int report(const CLI::App& app, const std::string& message, int code) {
  std::fflush(stdout);  // keep what was printed before the error in order
  std::fprintf(stderr, "%s: %s\n", app.get_name().c_str(), one_line(message).c_str());
  return code;
}

}  // namespace

int run_tool(CLI::App& app, int argc, char** argv, const std::function<Status()>& body) {
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version: print and exit 0
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      return report(app, std::string(e.what()) + " (see --help)", 2);
    }
    Status status = body();
    if (!status.ok()) return report(app, status.message(), 1);
    std::fflush(stdout);
    return 0;
  } catch (const std::bad_alloc&) {
    return report(app, "out of memory", 1);
  } catch (const std::exception& e) {
    return report(app, std::string("internal error: ") + e.what(), 1);
  } catch (...) {
    return report(app, "internal error: unknown exception", 1);
  }
}

}  // namespace mote::tools
