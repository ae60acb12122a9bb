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
#include "converters/tool/check_shapes.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"

namespace mote::convert {
namespace {

namespace fs = std::filesystem;

// What mote-convert says about each reference runtime.
struct ReferenceInfo {
  const char* runtime;   // in messages
  const char* modules;   // what the helper imports
  const char* packages;  // what pip installs for it
};

ReferenceInfo reference_info(Reference r) {
  if (r == Reference::kLiteRt) return {"LiteRT", "numpy or ai_edge_litert", "numpy ai-edge-litert"};
  return {"onnxruntime", "numpy or onnxruntime", "numpy onnxruntime"};
}

// The helper script (reference_run.py, both runtimes): $MOTE_REFERENCE_HELPER,
// else the installed one next to the executable's prefix (bin/../share/mote),
// else the source tree's copy (a build-tree run).
std::string helper_path() {
  if (const char* env = std::getenv("MOTE_REFERENCE_HELPER")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / MOTE_REFERENCE_HELPER_INSTALLED;
    if (fs::exists(installed, ec)) return installed.string();
  }
  return MOTE_REFERENCE_HELPER_SOURCE;
}

// Runs argv without a shell (no quoting problems with paths), its stderr
// going to `stderr_path` and its temporary files under `temp_dir` (onnxruntime
// leaves a session file, .ses, in $TMPDIR; the check's own directory is
// removed afterwards); returns the exit status, 127 when it could not be
// started, -1 when it died of a signal.
int run_program(const std::vector<std::string>& args, const std::string& stderr_path, const std::string& temp_dir) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* err = std::freopen(stderr_path.c_str(), "w", stderr);
    (void)err;
    setenv("TMPDIR", temp_dir.c_str(), 1);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The last lines of what a program wrote to stderr (a Python traceback ends
// with the line that matters).
std::string tail_of(const fs::path& path, size_t max_lines) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string text;
  for (size_t i = from; i < lines.size(); ++i) text += (text.empty() ? "" : "\n    ") + lines[i];
  return text;
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
  double max_abs = 0;  // max |mote - ref|
  double max_ref = 0;  // max |ref|
  int64_t over = 0;    // elements outside atol + rtol * |ref|
  int64_t worst = -1;  // the element furthest outside it
  std::string problem;
  bool within() const { return problem.empty() && over == 0; }
  // max|mote - ref| / max|ref|: the relative error of the output as a whole.
  double relative() const { return max_abs == 0 ? 0 : max_ref == 0 ? INFINITY : max_abs / max_ref; }
};

Comparison compare(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  Comparison c;
  if (actual.shape() != expected.shape()) {
    c.problem = "shape " + shape_to_string(actual.shape()) + " vs the reference's " + shape_to_string(expected.shape());
    return c;
  }
  std::vector<double> a = actual.to_doubles(), e = expected.to_doubles();
  double worst_excess = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(e[i])) {
      if (std::isnan(a[i]) != std::isnan(e[i]) && c.problem.empty()) {
        c.problem = "NaN mismatch at element " + std::to_string(i);
      }
      continue;
    }
    if (std::isfinite(e[i])) c.max_ref = std::max(c.max_ref, std::fabs(e[i]));
    if (a[i] == e[i]) continue;  // equal infinities included
    double diff = std::fabs(a[i] - e[i]);
    c.max_abs = std::max(c.max_abs, diff);
    double excess = diff - (atol + rtol * std::fabs(e[i]));
    if (!(excess <= 0)) {
      ++c.over;
      if (c.worst < 0 || excess > worst_excess) {
        c.worst = static_cast<int64_t>(i);
        worst_excess = excess;
      }
    }
  }
  return c;
}

std::string describe_failure(const Comparison& c, const Tensor& got, const Tensor& expected) {
  if (!c.problem.empty()) return c.problem;
  if (c.over == 0) return "";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld of %lld elements over tolerance; worst at %lld: %.6g vs %.6g",
                static_cast<long long>(c.over), static_cast<long long>(got.numel()), static_cast<long long>(c.worst),
                got.to_doubles()[static_cast<size_t>(c.worst)], expected.to_doubles()[static_cast<size_t>(c.worst)]);
  return buf;
}

std::string file_name_for(const std::string& kind, size_t k) { return kind + "_" + std::to_string(k) + ".npy"; }

// Random inputs for everything not given by a file, with every dynamic
// dimension sized by check_shapes.hpp.
Result<std::map<std::string, Tensor>> make_inputs(const Model& model, const CheckOptions& options, FILE* out) {
  std::map<std::string, Tensor> inputs;
  CheckShapeSources sources;
  sources.source = options.source;
  sources.dim_sizes = options.dim_sizes;
  for (const auto& entry : model.def().metadata) sources.metadata[entry->key] = entry->value;
  std::vector<std::pair<std::string, Shape>> declared;
  for (const TensorDesc& desc : model.inputs()) {
    auto file = options.input_files.find(desc.name);
    if (file == options.input_files.end()) {
      declared.emplace_back(desc.name, desc.shape);
      continue;
    }
    MOTE_ASSIGN_OR_RETURN(Tensor t, read_npy(file->second));
    if (t.dtype() != desc.dtype) {
      return invalid_argument(file->second + ": dtype " + dtype_name(t.dtype()) + ", input '" + desc.name + "' is " +
                              dtype_name(desc.dtype));
    }
    sources.file_shapes[desc.name] = t.shape();
    inputs[desc.name] = std::move(t);
  }
  for (const auto& [name, file] : options.input_files) {
    if (!inputs.count(name)) return not_found("--inputs names '" + name + "', which is not an input of the model");
  }
  MOTE_ASSIGN_OR_RETURN(CheckShapes chosen, choose_check_shapes(declared, sources));
  for (const std::string& note : chosen.notes) std::fprintf(out, "check: %s\n", note.c_str());
  std::mt19937 rng(0);
  for (const TensorDesc& desc : model.inputs()) {
    if (inputs.count(desc.name)) continue;
    const Shape& shape = chosen.shapes.at(desc.name);
    inputs[desc.name] = random_input(desc.dtype, shape, rng);
    if (options.verbose || !chosen.notes.empty()) {
      std::fprintf(out, "check: input '%s': random %s %s\n", desc.name.c_str(), dtype_name(desc.dtype),
                   shape_to_string(shape).c_str());
    }
  }
  return inputs;
}

std::string describe_inputs(const std::map<std::string, Tensor>& inputs) {
  std::string text;
  for (const auto& [name, t] : inputs) {
    text += (text.empty() ? "" : ", ") + name + " " + dtype_name(t.dtype()) + " " + shape_to_string(t.shape());
  }
  return text;
}

// What the helper's exit status means (reference_run.py).
std::string reference_failure(int rc, const std::string& python, const std::string& helper, const ReferenceInfo& ref) {
  const std::string runtime = ref.runtime;
  switch (rc) {
    case 127: return "cannot start '" + python + "' (set MOTE_PYTHON to choose the interpreter)";
    case 3: return python + " lacks " + ref.modules + " (python3 -m pip install " + ref.packages + ")";
    case 4: return runtime + " could not load the model";
    case 5: return runtime + " failed while running the model";
    default: return helper + " exited with status " + std::to_string(rc);
  }
}

}  // namespace

Status run_check(const CheckOptions& options, FILE* out) {
  auto loaded = Model::load(options.mote_path);
  if (!loaded.ok()) return loaded.status().with_context("--check: loading the converted model");
  std::shared_ptr<const Model> model = *loaded;
  std::string tmpl = (fs::temp_directory_path() / "mote-convert-check-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return io_error("--check: cannot create a temporary directory from " + tmpl);
  fs::path dir(tmpl);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};

  auto made = make_inputs(*model, options, out);
  if (!made.ok()) {
    const std::string& msg = made.status().message();
    return Status(made.status().code(), msg.rfind("--check", 0) == 0 ? msg : "--check: preparing the inputs: " + msg);
  }
  std::map<std::string, Tensor> inputs = std::move(made).value();
  std::ofstream manifest(dir / "manifest.tsv");
  size_t k = 0;
  for (const auto& [name, t] : inputs) {
    std::string path = (dir / file_name_for("input", k++)).string();
    MOTE_RETURN_IF_ERROR(write_npy(path, t));
    manifest << "input\t" << name << "\t" << path << "\n";
  }
  std::vector<TensorDesc> outputs = model->outputs();
  for (size_t j = 0; j < outputs.size(); ++j) {
    manifest << "output\t" << outputs[j].name << "\t" << (dir / file_name_for("expected", j)).string() << "\n";
  }
  manifest.close();

  // Mote.
  auto session = Session::create(model);
  auto actual = session.ok() ? (*session)->run(inputs) : Result<std::map<std::string, Tensor>>(session.status());
  if (!actual.ok()) {
    return Status(actual.status().code(), "--check: Mote's run failed on " + describe_inputs(inputs) + ": " +
                                              actual.status().to_string());
  }

  // The source model in its own runtime.
  const ReferenceInfo ref = reference_info(options.reference);
  std::string helper = helper_path();
  const char* env_python = std::getenv("MOTE_PYTHON");
  std::string python = env_python ? env_python : "python3";
  fs::path helper_log = dir / "reference.stderr";
  std::vector<std::string> command = {python, helper, options.source_path, (dir / "manifest.tsv").string()};
  if (options.unoptimized) command.push_back("--unoptimized");
  int rc = run_program(command, helper_log.string(), dir.string());
  if (rc != 0) {
    std::string detail = tail_of(helper_log, 4);
    return Status(StatusCode::kNotFound, "--check: the reference run in " + std::string(ref.runtime) + " failed: " +
                                             reference_failure(rc, python, helper, ref) +
                                             (detail.empty() ? "" : ":\n    " + detail));
  }

  bool all_ok = true;
  std::fprintf(out, "check: %zu output%s against %s; an element passes when |mote - ref| <= %g + %g * |ref|\n",
               outputs.size(), outputs.size() == 1 ? "" : "s", ref.runtime, options.atol, options.rtol);
  size_t width = 6;
  for (const TensorDesc& o : outputs) width = std::max(width, o.name.size());
  for (size_t j = 0; j < outputs.size(); ++j) {
    MOTE_ASSIGN_OR_RETURN(Tensor expected, read_npy((dir / file_name_for("expected", j)).string()));
    const Tensor& got = actual->at(outputs[j].name);
    Comparison c = compare(got, expected, options.rtol, options.atol);
    all_ok = all_ok && c.within();
    std::string failure = describe_failure(c, got, expected);
    char line[256];
    std::snprintf(line, sizeof line, "  %-4s %-*s %-16s max|diff| %-9.3g max|diff|/max|ref| %-9.3g",
                  c.within() ? "ok" : "FAIL", static_cast<int>(width), outputs[j].name.c_str(),
                  shape_to_string(got.shape()).c_str(), c.max_abs, c.relative());
    std::string text = line;
    if (!failure.empty()) text += "  " + failure;
    text.erase(text.find_last_not_of(' ') + 1);
    std::fprintf(out, "%s\n", text.c_str());
  }
  if (!all_ok) {
    return invalid_argument("--check: outputs differ from " + std::string(ref.runtime) +
                            " beyond tolerance (listed above)");
  }
  return {};
}

}  // namespace mote::convert
