#!/usr/bin/env bash
# CI hardening: the runtime, importer and TensorIO under ASan+UBSan, and the
# importer under libFuzzer.
#   test/hardening/run_hardening.sh [FUZZ_SECONDS]      (default 60)
# Needs the normal build (./setup.sh: build/bin/kiln compiles the e2e
# models). Configures build-asan/ (KILN_SANITIZE=ON) and build-fuzz/
# (KILN_FUZZ=ON) and builds only the targets used here, not the compiler.
# Every step runs even if an earlier one failed; the exit status is 1 if any
# failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

fuzz_seconds=${1:-60}
kiln=build/bin/kiln
failed=()

step() { echo "== $(date +%T) $*"; }
fail() {
  echo "FAILED: $*" >&2
  failed+=("$*")
}

configure() {
  local dir=$1
  shift
  mkdir -p "$dir"
  cmake -G Ninja -S . -B "$dir" -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_BUILD_TYPE=Release -DLLVM_USE_LINKER=lld "$@" >"$dir/configure.log" 2>&1 ||
    {
      cat "$dir/configure.log" >&2
      return 1
    }
}

# Built first: the fuzzer's regressions are the quickest check of the
# importer fixes, and the fuzz build is the smaller one.
step "build-fuzz: configure and build kiln-importer-fuzzer"
SECONDS=0
if configure build-fuzz -DKILN_FUZZ=ON &&
  ninja -C build-fuzz kiln-importer-fuzzer; then
  echo "build-fuzz built in ${SECONDS}s"
  step "fuzz: regressions, then ${fuzz_seconds}s of fuzzing"
  test/fuzz/run_fuzz.sh build-fuzz "$fuzz_seconds" || fail "importer fuzzer"
else
  fail "build-fuzz"
fi

step "build-asan: configure and build the unit tests and kiln_run_npy"
SECONDS=0
unit_tests=(test/unit/runtime/KilnRuntimeTests
  test/unit/importer/KilnImporterTests
  test/unit/driver/KilnTensorIOTests)
if configure build-asan -DKILN_SANITIZE=ON &&
  ninja -C build-asan "${unit_tests[@]##*/}" kiln_run_npy; then
  echo "build-asan built in ${SECONDS}s"
  for t in "${unit_tests[@]}"; do
    step "asan: ${t##*/}"
    "build-asan/$t" --gtest_brief=1 || fail "${t##*/} under ASan+UBSan"
  done
  step "asan: ONNX node tests through the sanitized kiln_rt"
  if [ -x "$kiln" ]; then
    /usr/bin/python3 test/hardening/run_sanitized_e2e.py --kiln "$kiln" \
      --runner build-asan/bin/kiln_run_npy ||
      fail "node tests through the sanitized kiln_rt"
  else
    fail "$kiln is not built (run ./setup.sh first)"
  fi
else
  fail "build-asan"
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "hardening: ${#failed[@]} step(s) failed:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "hardening: all passed"
