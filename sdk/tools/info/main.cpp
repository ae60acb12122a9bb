// mote-info: what is in a .mote model, and which ops this build can run.
//
//   mote-info model.mote [--plan [--shape x=1x3x224x224]]
//   mote-info --ops [--json]
//   mote-info --devices
#include <cstdio>

#include "mote/gpu.hpp"

#include "mote/model.hpp"
#include "sdk/tools/common/cli_args.hpp"
#include "sdk/tools/common/op_table.hpp"
#include "sdk/tools/common/tool_main.hpp"
#include "sdk/tools/info/model_report.hpp"

int main(int argc, char** argv) {
  CLI::App app("Describe a .mote model, or list the op types this build supports.", "mote-info");
  std::string path;
  bool ops = false, json = false, plan = false, devices = false;
  int threads = 0;
  std::vector<std::string> shape_args;
  app.add_option("MODEL", path, "the .mote file to describe");
  app.add_flag("--ops", ops, "list every op type with the backends that run it");
  app.add_flag("--devices", devices, "describe the Vulkan device Mote would use, or say why there is none");
  app.add_flag("--json", json, "with --ops: print JSON, [{\"op\": NAME, \"backends\": [...]}, ...]");
  app.add_flag("--plan", plan, "also prepare a CPU session and print its memory plan and prepare time");
  app.add_option("--shape", shape_args, "with --plan: input shape NAME=1x3x224x224 (for dynamic inputs)")
      ->allow_extra_args(false);  // one value per --shape, so MODEL may follow
  app.add_option("--threads", threads, "with --plan: CPU threads (0 = all)")->check(CLI::NonNegativeNumber);

  return mote::tools::run_tool(app, argc, argv, [&]() -> mote::Status {
    if (devices) {
      if (!path.empty() || ops || plan) return mote::invalid_argument("--devices takes no model, --ops or --plan");
      auto lines = mote::describe_gpu();
      if (!lines.ok()) {
        std::printf("no Vulkan device: %s\n", lines.status().message().c_str());
        return {};
      }
      for (const std::string& line : lines.value()) std::printf("%s\n", line.c_str());
      return {};
    }
    if (ops) {
      if (!path.empty() || plan) return mote::invalid_argument("--ops takes no model and no --plan");
      auto table = mote::tools::op_support_table();
      std::fputs(json ? mote::tools::op_table_json(table).c_str() : mote::tools::op_table_text(table).c_str(),
                 stdout);
      return {};
    }
    if (json) return mote::invalid_argument("--json is only available with --ops");
    if (path.empty()) return mote::invalid_argument("give a MODEL to describe, or --ops (see --help)");
    if (!plan && (!shape_args.empty() || threads != 0)) {
      return mote::invalid_argument("--shape and --threads only apply with --plan");
    }
    MOTE_ASSIGN_OR_RETURN(auto shapes, mote::tools::parse_shape_args(shape_args));
    MOTE_ASSIGN_OR_RETURN(auto model, mote::Model::load(path));
    mote::tools::print_model_report(stdout, path, *model);
    if (plan) MOTE_RETURN_IF_ERROR(mote::tools::print_plan_report(stdout, model, shapes, threads));
    return {};
  });
}
