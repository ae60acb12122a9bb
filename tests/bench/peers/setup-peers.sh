#!/usr/bin/env bash
# The peers for the pyenv python3: onnxruntime, ncnn, MNN (with mnnconvert)
# and pnnx (ONNX to ncnn), and matplotlib for the chart `--docs` writes. pnnx goes in without its dependencies: only its
# converter binary is used, and its Python side would pull in a 1 GB torch.
set -euo pipefail
if ! python3 -c "import onnxruntime, ncnn, MNN" 2>/dev/null; then
  echo "setup: pip installing onnxruntime ncnn MNN"
  python3 -m pip install --quiet onnxruntime ncnn MNN
fi
if ! python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('pnnx') is None)"; then
  echo "setup: pip installing pnnx (converter only)"
  python3 -m pip install --quiet --no-deps pnnx
fi
if ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "setup: pip installing matplotlib (the chart of --docs)"
  python3 -m pip install --quiet matplotlib
fi
