#include "converters/tool/check.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "converters/common/npy.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"

namespace mote::convert {
namespace {

namespace fs = std::filesystem;

// The helper script: $MOTE_ONNX_HELPER, else the installed one next to the
// executable's prefix (bin/../share/mote), else the source tree's copy (a
// build-tree run).
std::string helper_path() {
  if (const char* env = std::getenv("MOTE_ONNX_HELPER")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / MOTE_ONNX_HELPER_INSTALLED;
    if (fs::exists(installed, ec)) return installed.string();
  }
  return MOTE_ONNX_HELPER_SOURCE;
}

// Runs argv without a shell (no quoting problems with paths); returns the
// exit status, or -1 when it could not start.
int run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Tensor random_input(DType dtype, const Shape& shape, std::mt19937& rng) {
  Tensor t = Tensor::zeros(dtype, shape);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  // Integer inputs are often indices or sizes: small non-negative values
  // keep them valid for most models.
  std::uniform_int_distribution<int> small(0, 3);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case DType::F32: t.data<float>()[i] = real(rng); break;
      case DType::F64: t.data<double>()[i] = real(rng); break;
      case DType::I32: t.data<int32_t>()[i] = small(rng); break;
      case DType::I64: t.data<int64_t>()[i] = small(rng); break;
      case DType::I8: t.data<int8_t>()[i] = static_cast<int8_t>(small(rng)); break;
      case DType::U8: t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng)); break;
      case DType::Bool: t.data<uint8_t>()[i] = small(rng) & 1; break;
      case DType::F16: break;
    }
  }
  return t;
}

struct Comparison {
  double max_abs = 0, max_rel = 0;
  bool within = true;
  std::string problem;
};

Comparison compare(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  Comparison c;
  if (actual.shape() != expected.shape()) {
    c.within = false;
    c.problem = "shape " + shape_to_string(actual.shape()) + " vs onnxruntime's " + shape_to_string(expected.shape());
    return c;
  }
  std::vector<double> a = actual.to_doubles(), e = expected.to_doubles();
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(e[i])) {
      if (std::isnan(a[i]) != std::isnan(e[i])) {
        c.within = false;
        c.problem = "NaN mismatch at element " + std::to_string(i);
      }
      continue;
    }
    if (a[i] == e[i]) continue;  // equal infinities included
    double diff = std::fabs(a[i] - e[i]);
    c.max_abs = std::max(c.max_abs, diff);
    c.max_rel = std::max(c.max_rel, diff / std::max(std::fabs(e[i]), 1e-12));
    if (!(diff <= atol + rtol * std::fabs(e[i]))) c.within = false;
  }
  return c;
}

std::string file_name_for(const std::string& kind, size_t k) { return kind + "_" + std::to_string(k) + ".npy"; }

}  // namespace

Status run_check(const CheckOptions& options, FILE* out) {
  MOTE_ASSIGN_OR_RETURN(auto model, Model::load(options.mote_path));
  char tmpl[] = "/tmp/mote-convert-check-XXXXXX";
  if (!mkdtemp(tmpl)) return io_error("cannot create a temporary directory for --check");
  fs::path dir(tmpl);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};

  // Inputs: given files, else random with the declared (or given) shape.
  std::mt19937 rng(0);
  std::map<std::string, Tensor> inputs;
  std::ofstream manifest(dir / "manifest.tsv");
  size_t k = 0;
  for (const TensorDesc& desc : model->inputs()) {
    Tensor t;
    auto file = options.input_files.find(desc.name);
    if (file != options.input_files.end()) {
      MOTE_ASSIGN_OR_RETURN(t, read_npy(file->second));
      if (t.dtype() != desc.dtype) {
        return invalid_argument(file->second + ": dtype " + dtype_name(t.dtype()) + ", input '" + desc.name +
                                "' is " + dtype_name(desc.dtype));
      }
    } else {
      Shape shape = desc.shape;
      auto given = options.input_shapes.find(desc.name);
      if (given != options.input_shapes.end()) shape = given->second;
      for (int64_t& d : shape) d = d < 0 ? 1 : d;
      t = random_input(desc.dtype, shape, rng);
      if (options.verbose) {
        std::fprintf(out, "  input '%s': random %s %s\n", desc.name.c_str(), dtype_name(desc.dtype),
                     shape_to_string(shape).c_str());
      }
    }
    std::string path = (dir / file_name_for("input", k++)).string();
    MOTE_RETURN_IF_ERROR(write_npy(path, t));
    manifest << "input\t" << desc.name << "\t" << path << "\n";
    inputs[desc.name] = std::move(t);
  }
  for (const auto& [name, file] : options.input_files) {
    if (!inputs.count(name)) return not_found("--inputs names '" + name + "', which is not an input of the model");
  }
  std::vector<TensorDesc> outputs = model->outputs();
  for (size_t j = 0; j < outputs.size(); ++j) {
    manifest << "output\t" << outputs[j].name << "\t" << (dir / file_name_for("expected", j)).string() << "\n";
  }
  manifest.close();

  // Mote.
  MOTE_ASSIGN_OR_RETURN(auto session, Session::create(model));
  MOTE_ASSIGN_OR_RETURN(auto actual, session->run(inputs));

  // onnxruntime.
  std::string helper = helper_path();
  const char* python = std::getenv("MOTE_PYTHON");
  int rc = run_program({python ? python : "python3", helper, options.onnx_path, (dir / "manifest.tsv").string()});
  if (rc != 0) {
    return internal_error("the onnxruntime helper (" + helper + ") failed with status " + std::to_string(rc) +
                          "; it needs python3 with numpy and onnxruntime (set MOTE_PYTHON to choose the interpreter)");
  }

  bool all_ok = true;
  std::fprintf(out, "check: %zu output%s, tolerance |mote - ort| <= %g + %g * |ort|\n", outputs.size(),
               outputs.size() == 1 ? "" : "s", options.atol, options.rtol);
  for (size_t j = 0; j < outputs.size(); ++j) {
    MOTE_ASSIGN_OR_RETURN(Tensor expected, read_npy((dir / file_name_for("expected", j)).string()));
    const Tensor& got = actual.at(outputs[j].name);
    Comparison c = compare(got, expected, options.rtol, options.atol);
    all_ok = all_ok && c.within;
    std::fprintf(out, "  %-4s %-32s %-14s max abs %.3g  max rel %.3g%s%s\n", c.within ? "ok" : "FAIL",
                 outputs[j].name.c_str(), shape_to_string(got.shape()).c_str(), c.max_abs, c.max_rel,
                 c.problem.empty() ? "" : "  ", c.problem.c_str());
  }
  if (!all_ok) return invalid_argument("--check: outputs differ from onnxruntime beyond tolerance");
  return {};
}

}  // namespace mote::convert
