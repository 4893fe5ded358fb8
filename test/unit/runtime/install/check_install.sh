#!/usr/bin/env bash
# Installs kiln_rt alone into a fresh prefix and uses it the three ways a
# program would: CMake's find_package(kiln_rt), pkg-config, and the Python
# module. Each runs a model compiled by kiln and checks its output.
#   check_install.sh BUILD_DIR KILN SOURCE_DIR
set -euo pipefail
build=$1 kiln=$2 src=$3
cc=${CC:-clang-22}  # installed by setup.sh, as kiln's own compiler
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # name command...
  if "${@:2}" >"$tmp/out.txt" 2>&1 && grep -q '^ok$' "$tmp/out.txt"; then
    echo "PASS $1"; passed=$((passed + 1))
  else
    echo "FAIL $1"; cat "$tmp/out.txt"; failed=$((failed + 1))
  fi
}

cmake --install "$build" --component kiln_rt --prefix "$tmp/prefix" >/dev/null
/usr/bin/python3 "$src/test/lit/compiler/driver/Inputs/make_sub_model.py" "$tmp/model"
"$kiln" compile "$tmp/model/sub.onnx" -o "$tmp/model/sub.so"
lib=$(ls -d "$tmp"/prefix/lib*/ | head -1)

cmake -S "$here" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_RPATH="$lib" >/dev/null
cmake --build "$tmp/cmake" >/dev/null
check find_package "$tmp/cmake/consumer" "$tmp/model/sub.so"

export PKG_CONFIG_PATH="$lib/pkgconfig"
"$cc" "$here/main.c" -o "$tmp/pc_consumer" $(pkg-config --cflags --libs kiln_rt) \
  -Wl,-rpath,"$lib"
check pkg-config "$tmp/pc_consumer" "$tmp/model/sub.so"

cd "$tmp/model"
check python env -u KILN_RT_LIBRARY PYTHONPATH="$lib/python3/dist-packages" \
  /usr/bin/python3 -c '
import numpy as np, kiln_rt
m = kiln_rt.load("sub.so")   # a relative path without ./
a = np.arange(6, dtype=np.float32).reshape(2, 3)
(y,) = m.run(a, np.full((2, 3), 10, np.float32))
assert kiln_rt.__file__.startswith("'"$lib"'"), kiln_rt.__file__
print("ok" if np.array_equal(y, a - 10) else y)'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
