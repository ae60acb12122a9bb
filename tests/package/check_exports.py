#!/usr/bin/env python3
"""Checks what libmote.so exports: the C API (mote_*) and the C++ API's
classes and functions (MOTE_API), and nothing else: no kernels, Vulkan
layer, registries, Highway or FlatBuffers internals an app could clash with.

Usage: check_exports.py NM LIBMOTE_SO [--training]
"""
import re
import subprocess
import sys

# The C++ API: what sdk/include/mote/*.hpp marks MOTE_API.
CXX_API = re.compile(
    r"^(mote::(Model|Session|Tensor|Status|TrainingSession|GraphBuilder)::|"
    r"mote::(status_code_name|dtype_size|dtype_name|shape_to_string|shape_numel|backend_name|parse_backend|"
    r"scheduled_learning_rate|parse_loss_kind|parse_optimizer_kind|parse_schedule_kind|describe_gpu|"
    r"reset_gpu_pipelines|tune_gpu_gemms|choose_gpu_precision|default_gpu_cache_dir|encode_source_inputs|encode_source_outputs|source_interface|source_dims_to_string)"
    r"(\[abi:cxx11\])?\()")
# Judged on the mangled names: the weak instantiations of standard-library
# templates (std::vector<...>, <regex>), which libstdc++'s headers declare
# with default visibility, so every shared C++ library exports them (they
# are identical in every user), with their typeinfo, vtables and local
# statics (and guard variables).
STD_MANGLED = re.compile(r"^_Z(GV)?Z?(N|NK|T[ISV])?(St|NSt|N9__gnu_cxx|9__gnu_cxx)")
REQUIRED = ["mote_version", "mote_model_load", "mote::Model::load(", "mote::Session::create(",
            "mote::Session::run(", "mote::Tensor::zeros("]
REQUIRED_TRAINING = ["mote_trainer_create", "mote::TrainingSession::create("]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    nm, lib = sys.argv[1], sys.argv[2]
    training = "--training" in sys.argv[3:]
    def listing(*flags):
        out = subprocess.run([nm, "-D", "--defined-only", *flags, lib], capture_output=True, text=True,
                             check=True).stdout
        return [line.split(maxsplit=2)[2] for line in out.splitlines() if len(line.split(maxsplit=2)) == 3]
    mangled, demangled = listing(), listing("-C")
    if len(mangled) != len(demangled):
        sys.exit("nm listed the symbols differently with and without -C")
    symbols = list(zip(mangled, demangled))
    stray = [name for raw, name in symbols
             if not (name.startswith("mote_") or CXX_API.match(name) or STD_MANGLED.match(raw))]
    names = [name for _, name in symbols]
    missing = [r for r in REQUIRED + (REQUIRED_TRAINING if training else [])
               if not any(n.startswith(r) for n in names)]
    leaked_training = [n for n in names if not training and ("mote_trainer" in n or "TrainingSession" in n)]
    c_api = sum(1 for n in names if n.startswith("mote_"))
    cxx_api = sum(1 for n in names if CXX_API.match(n))
    print(f"{lib}: {len(symbols)} exported symbols: {c_api} C API, {cxx_api} C++ API, "
          f"{len(symbols) - c_api - cxx_api - len(stray)} compiler/runtime (typeinfo, std:: templates)")
    ok = True
    for what, items in (("not part of the API", stray), ("missing", missing),
                        ("training symbols in a build without training", leaked_training)):
        if items:
            ok = False
            print(f"{len(items)} exported symbol(s) {what}:")
            for n in items[:40]:
                print(f"  {n}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
