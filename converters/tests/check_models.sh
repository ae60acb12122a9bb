#!/bin/sh
# Converts the models of make_models.py with mote-convert --check, which runs
# each in Mote and in onnxruntime and compares the outputs.
# Usage: check_models.sh MOTE_CONVERT WORKDIR
# Exit 77 (CTest: skipped) when python3 lacks onnx, numpy or onnxruntime.
set -eu
convert=$1
work=$2
here=$(dirname "$0")
python=${MOTE_PYTHON:-python3}
rm -rf "$work"
mkdir -p "$work"
# onnxruntime leaves a session file (.ses) in $TMPDIR: keep it in the work folder.
export TMPDIR="$work"
if ! "$python" -c "import onnx, numpy, onnxruntime" 2>/dev/null; then
  echo "check_models: $python has no onnx/numpy/onnxruntime; skipped"
  exit 77
fi
"$python" "$here/make_models.py" "$work"

run() {
  echo "== mote-convert $*"
  "$convert" "$@"
}
run "$work/cnn.onnx" "$work/cnn.mote" --check
run "$work/cnn.onnx" "$work/cnn_fp16.mote" --check --fp16
run "$work/transformer.onnx" "$work/transformer.mote" --check
run "$work/transformer.onnx" "$work/transformer_b3.mote" --check --input-shape x:3x8x16
run "$work/legacy9.onnx" "$work/legacy9.mote" --check
run "$work/external/model.onnx" "$work/external.mote" --check
run "$work/long_chain.onnx" "$work/long_chain.mote" --check
run "$work/shape_chain.onnx" "$work/shape_chain.mote" --check
# One quantum of y (y_scale 0.05) allowed: onnxruntime's own QLinearConv is
# a quantum off the exact integer result on some CPUs (an AVX2 EPYC, at one
# element of this input), where Mote's matches it (numpy, 20 inputs).
run "$work/quantized.onnx" "$work/quantized.mote" --check --atol 0.0501 > "$work/quantized.log"
cat "$work/quantized.log"
# ... and its QLinearConv, QLinearMatMul, MatMulInteger and ConvInteger must stay integer
# ops (each read a QuantizeLinear's output, whose shape the importer did not
# know yet, and went to a float graph until the eighth session).
for op in QLinearConv QLinearMatMul MatMulInteger ConvInteger; do
  if ! sed -n '/after passes/,/passes:/p' "$work/quantized.log" | grep -Eq "(^| )$op 1(,|$)"; then
    echo "check_models: quantized.onnx's $op was not kept as Mote's integer op"
    exit 1
  fi
done
run "$work/shape_chain.onnx" "$work/shape_chain_b3.mote" --check --inputs x="$work/shape_chain_x3.npy"
# onnxruntime's own QDQ quantisation of cnn.onnx: every Conv must reach the
# int8 kernel (fold_qdq), and the result agree with onnxruntime's int8 run.
run "$work/qdq.onnx" "$work/qdq.mote" --check --atol 0.02 > "$work/qdq.log"
cat "$work/qdq.log"
if ! grep -Eq "fold_qdq +(.*, )?4 Conv -> QLinearConv" "$work/qdq.log"; then
  echo "check_models: the 4 QDQ Convs of qdq.onnx were not folded into QLinearConv"
  exit 1
fi
# The ops between its Convs (residual Add, Mul, Concat, AveragePool,
# GlobalAveragePool) and its classifier's Gemm must fold into their int8 ops, and MaxPool, the
# nearest Resize and Flatten run on the 8-bit codes; the result must equal
# onnxruntime's run of the QDQ chains as ONNX defines them.
run "$work/qdq_mixed.onnx" "$work/qdq_mixed.mote" --check --check-unoptimized --atol 1e-6 > "$work/qdq_mixed.log"
cat "$work/qdq_mixed.log"
for folded in "1 Add -> QLinearAdd" "1 Mul -> QLinearMul" "1 Concat -> QLinearConcat" \
  "1 AveragePool -> QLinearAveragePool" "1 GlobalAveragePool -> QLinearGlobalAveragePool" "5 Conv -> QLinearConv" \
  "2 MaxPool on 8-bit codes" "1 Resize on 8-bit codes" "1 Gemm -> QLinearMatMul"; do
  if ! grep -Eq "fold_qdq +(.*, )?$folded(,|$)" "$work/qdq_mixed.log"; then
    echo "check_models: qdq_mixed.onnx: no '$folded' in the fold_qdq line"
    exit 1
  fi
done
# The same models in onnxruntime's QOperator format: its com.microsoft int8
# operators must map to Mote's (QGemm to QLinearMatMul; QLinearSoftmax
# runs in float between (de)quantisations) and equal onnxruntime's run.
for model in qop qop_mixed; do
  run "$work/$model.onnx" "$work/$model.mote" --check --check-unoptimized --atol 1e-6 > "$work/$model.log"
  cat "$work/$model.log"
done
for op in QLinearAdd QLinearMul QLinearGlobalAveragePool QLinearMatMul; do
  if ! sed -n '/after passes/,/passes:/p' "$work/qop.log" | grep -Eq " $op 1(,|$)"; then
    echo "check_models: qop.onnx: no $op after the passes"
    exit 1
  fi
done
for op in QLinearConcat QLinearAveragePool; do
  if ! sed -n '/after passes/,/passes:/p' "$work/qop_mixed.log" | grep -Eq " $op 1(,|$)"; then
    echo "check_models: qop_mixed.onnx: no $op after the passes"
    exit 1
  fi
done
# The same for a transformer: its 5 linear layers' MatMuls must reach the
# int8 kernel (QLinearMatMul), and the result equal onnxruntime's run of the
# QDQ chains as ONNX defines them (its graph optimisations off: its fused
# int8 kernels differ from the definition by up to 3 output quanta here).
run "$work/qdq_transformer.onnx" "$work/qdq_transformer.mote" --check --check-unoptimized --atol 1e-6 \
  > "$work/qdq_transformer.log"
cat "$work/qdq_transformer.log"
if ! grep -Eq "fold_qdq +(.*, )?5 MatMul -> QLinearMatMul" "$work/qdq_transformer.log"; then
  echo "check_models: the 5 QDQ MatMuls of qdq_transformer.onnx with constant weights were not folded"
  exit 1
fi
# onnxruntime's quantize_dynamic of it: each linear layer's activation
# quantised per run (DynamicQuantizeLinear) and multiplied by MatMulInteger,
# which must stay Mote's integer op (its A zero point computed per run).
run "$work/dynamic_transformer.onnx" "$work/dynamic_transformer.mote" --check --atol 1e-4 \
  > "$work/dynamic_transformer.log"
cat "$work/dynamic_transformer.log"
if ! sed -n '/after passes/,/passes:/p' "$work/dynamic_transformer.log" | grep -Eq " MatMulInteger 5(,|$)"; then
  echo "check_models: dynamic_transformer.onnx's 5 MatMulIntegers were not kept as Mote's integer op"
  exit 1
fi
