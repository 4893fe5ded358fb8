#!/usr/bin/env bash
# Sets up a Debian 12 machine for kiln and builds it:
#   - Debian packages: LLVM/MLIR 22, clang/lld (and its sanitizer and
#     libFuzzer runtimes, for test/hardening), ONNX, protobuf, GoogleTest,
#     ONNX backend test data, python3-onnx/torch/torchvision (test and
#     benchmark models), AArch64
#     cross toolchain and qemu (emulated tests);
#   - ONNX Runtime's CPU library from the npm registry (reference outputs
#     and benchmarks), the real test models;
#   - configures and builds into build/.
# Re-running is cheap: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo

packages=(
  cmake ninja-build git
  llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 lld-22 libclang-rt-22-dev
  libonnx-dev protobuf-compiler libprotobuf-dev libgtest-dev
  libonnx-testdata python3-onnx python3-numpy python3-torch python3-torchvision
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
  gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
  libopenblas-dev pkgconf
  libsqlite3-dev libxgboost-dev chromium
)
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y \
    --no-install-recommends "${missing[@]}"
fi

cmake -G Ninja -S . -B build \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DCMAKE_BUILD_TYPE=Release -DLLVM_USE_LINKER=lld
ninja -C build

# Reference runtime and real models for the end-to-end tests (ignored by git).
test/e2e/tools/install_ort.sh build/ort >/dev/null
test/e2e/models/fetch_models.sh >/dev/null
[ -f test/e2e/models/cache/encoder.onnx ] ||
  /usr/bin/python3 test/e2e/models/export_encoder.py >/dev/null
echo "kiln is built: build/bin/kiln"
