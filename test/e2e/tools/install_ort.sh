#!/usr/bin/env bash
# Installs the ONNX Runtime Node binding (CPU only) into a directory, idempotently.
#
#   test/e2e/tools/install_ort.sh [DIR]      (default: build/ort)
#
# Prints the path of the installed package directory (DIR/node_modules/onnxruntime-node)
# as the last line of stdout. Pass DIR to ort_run.js through --ort-dir or KILN_ORT_DIR.
set -euo pipefail

ORT_VERSION="${ORT_VERSION:-1.30}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
dir="${1:-$repo_root/build/ort}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
pkg="$dir/node_modules/onnxruntime-node"

have_version() {
  [[ -f "$pkg/package.json" ]] || return 1
  local v
  v="$(node -p "require('$pkg/package.json').version" 2>/dev/null)" || return 1
  [[ "$v" == "$ORT_VERSION" || "$v" == "$ORT_VERSION".* ]]
}

if ! have_version; then
  command -v npm >/dev/null || { echo "install_ort.sh: npm not found" >&2; exit 1; }
  cd "$dir"
  [[ -f package.json ]] || npm init -y >/dev/null
  # Without ONNXRUNTIME_NODE_INSTALL=skip the postinstall step tries to download
  # CUDA providers from outside the npm registry and fails.
  ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund \
    "onnxruntime-node@$ORT_VERSION" >&2
fi

# Check that the native binding loads.
node -e "require('$pkg')" || { echo "install_ort.sh: onnxruntime-node does not load" >&2; exit 1; }
echo "$pkg"
