#!/bin/sh
# The GPU check, as one command for a machine with an NVIDIA GPU. First, where
# kiln is built:
#   /usr/bin/python3 bench/gpu/gpu_bench.py prepare      # writes bench/gpu/work
# then, on the GPU machine, from the repository root (bench/gpu/work carried):
#   sh bench/gpu/run_on_gpu.sh            (PYTHON=... picks the python3 with numpy)
# It builds kiln_rt there, runs the node tests and models on the GPU against
# their references, times them and MatMul 4096 against cuBLAS, and prints a
# table. Without a CUDA driver or device it stops at once, saying so.
set -e
cd "$(dirname "$0")/../.."
if [ ! -f bench/gpu/work/manifest.json ]; then
  echo "run_on_gpu: bench/gpu/work is missing: run 'gpu_bench.py prepare' where kiln is built" >&2
  exit 2
fi
exec "${PYTHON:-python3}" bench/gpu/gpu_bench.py run bench/gpu/work
