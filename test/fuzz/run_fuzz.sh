#!/usr/bin/env bash
# Runs the importer fuzzer for a bounded time; fails if it finds a crash.
#   test/fuzz/run_fuzz.sh BUILD_DIR SECONDS
# BUILD_DIR is a KILN_FUZZ=ON build with kiln-importer-fuzzer built (see
# test/hardening/run_hardening.sh). First replays every input kept under
# test/fuzz/regressions/, then fuzzes from a seed corpus: a sample of the ONNX
# node-test models and the importer's lit inputs. The corpus grows in
# BUILD_DIR/fuzz/corpus across runs; a crashing input lands in
# BUILD_DIR/fuzz/artifacts/. Extra arguments go to libFuzzer.
# To reproduce one input: BUILD_DIR/bin/kiln-importer-fuzzer FILE
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS [LIBFUZZER_ARGS...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
fuzzer=$build/bin/kiln-importer-fuzzer
[ -x "$fuzzer" ] || {
  echo "run_fuzz.sh: $fuzzer not built (ninja -C $build kiln-importer-fuzzer)" >&2
  exit 2
}

# Leaks in the uninstrumented system libraries (protobuf, libonnx's static
# schema tables) are not the importer's; memory errors and UB still abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# Per input: 10 s is ample for models of a few KB (imports take milliseconds);
# more means a hang. 2 GB of RSS or one 1 GB allocation counts as a crash.
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024)

shopt -s nullglob
regressions=("$src"/regressions/*)
if [ ${#regressions[@]} -gt 0 ]; then
  echo "run_fuzz.sh: replaying ${#regressions[@]} regression inputs"
  "$fuzzer" "${limits[@]}" "${regressions[@]}"
fi

work=$build/fuzz
seeds=$work/seeds
mkdir -p "$work/corpus" "$work/artifacts" "$seeds"
# Every fourth node test (a stable sample of ~230 ops and variants).
i=0
for model in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
  if [ $((i++ % 4)) -eq 0 ]; then
    cp "$model" "$seeds/node_$(basename "$(dirname "$model")").onnx"
  fi
done
for model in "$src"/../lit/compiler/importer/Inputs/*.onnx; do
  cp "$model" "$seeds/lit_$(basename "$model")"
done

echo "run_fuzz.sh: fuzzing for ${seconds}s"
status=0
"$fuzzer" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@" "$work/corpus" "$seeds" || status=$?
if [ $status -ne 0 ]; then
  echo "run_fuzz.sh: the fuzzer failed (exit $status); the input is in" \
    "$work/artifacts/. Fix the importer, then keep the input under" \
    "test/fuzz/regressions/." >&2
  exit $status
fi
