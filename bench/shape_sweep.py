#!/usr/bin/python3
"""One-op models over a sweep of shapes: kiln against ONNX Runtime, side by side.

    /usr/bin/python3 bench/shape_sweep.py [--threads 1] [--iters 20] [--repeats 3]
        [--kiln build/bin/kiln] [--ort-dir build/ort] [--compile-args "--cpu native"]
        [--only REGEX] [--out FILE.md]

Where a code generator tuned on a few models falls off a cliff, it does so on
shapes: this sweeps 3x3 and 1x1 convolutions over channel counts and spatial
sizes (standard ResNet stages and odd ones, prime sizes included), grouped
convolutions, and MatMuls from GEMV to square and ragged sizes. Each model is
compiled once (--cpu native by default, as ORT picks its kernels for this
machine) and timed through kiln_bench against ort_run.js --bench at the same
thread count; every repeat runs both, alternating which goes first. Prints a
Markdown table of medians (ms), the kiln/ORT ratio and kiln's GFLOP/s, and
the geometric mean of the ratios; --out writes the same table to a file.
"""
import argparse
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
import run_bench  # noqa: E402


def conv(c, f, hw, k=3, group=1, stride=1):
    pad = k // 2
    oh = (hw + 2 * pad - k) // stride + 1
    name = f"conv{k}x{k} {c}->{f} @{hw}" + (f" g{group}" if group > 1 else "") + \
        (f" s{stride}" if stride > 1 else "")
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((f, c // group, k, k)) * 0.1).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[k, k], pads=[pad] * 4,
                            strides=[stride] * 2, group=group)
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("x", T.FLOAT, [1, c, hw, hw])],
        [helper.make_tensor_value_info("y", T.FLOAT, [1, f, oh, oh])],
        [numpy_helper.from_array(w, "w")])
    x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
    return name, graph, x, 2.0 * f * (c // group) * k * k * oh * oh


def matmul(m, k, n):
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((k, n)) * 0.1).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul",
        [helper.make_tensor_value_info("x", T.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", T.FLOAT, [m, n])],
        [numpy_helper.from_array(w, "w")])
    x = rng.standard_normal((m, k)).astype(np.float32)
    return f"matmul {m}x{k}x{n}", graph, x, 2.0 * m * k * n


CASES = [
    lambda: conv(64, 64, 56), lambda: conv(128, 128, 28), lambda: conv(256, 256, 14),
    lambda: conv(512, 512, 7), lambda: conv(96, 96, 20), lambda: conv(200, 200, 17),
    lambda: conv(48, 80, 33), lambda: conv(160, 96, 11),
    lambda: conv(64, 256, 56, k=1), lambda: conv(512, 2048, 7, k=1),
    lambda: conv(256, 64, 56, k=1), lambda: conv(144, 40, 23, k=1),
    lambda: conv(16, 96, 112, k=1),
    lambda: conv(256, 256, 28, group=32), lambda: conv(128, 256, 28, stride=2),
    lambda: matmul(1, 4096, 4096), lambda: matmul(128, 768, 768),
    lambda: matmul(197, 768, 3072), lambda: matmul(49, 4608, 512),
    lambda: matmul(333, 333, 333), lambda: matmul(1000, 64, 17),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(REPO, "build", "bin", "kiln"))
    ap.add_argument("--kiln-bench", default=os.path.join(REPO, "build", "bin", "kiln_bench"))
    ap.add_argument("--ort-dir", default=os.path.join(REPO, "build", "ort"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compile-args", default="--cpu native")
    ap.add_argument("--only", default=None, help="regex on the case name")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rows, ratios = [], []
    with tempfile.TemporaryDirectory() as d:
        for i, make in enumerate(CASES):
            name, graph, x, flops = make()
            if a.only and not re.search(a.only, name):
                continue
            path = os.path.join(d, f"case{i}.onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
            np.save(path + ".x.npy", x)
            r = subprocess.run([a.kiln, "compile", path, "-o", path + ".so"] +
                               shlex.split(a.compile_args), capture_output=True, text=True)
            if r.returncode:
                rows.append((name, None, None, r.stderr.strip().splitlines()[-1:]))
                continue
            kiln_t, ort_t = [], []
            for rep in range(a.repeats):
                jobs = [("kiln", [a.kiln_bench, path + ".so", "--threads", str(a.threads),
                                  "--iters", str(a.iters), "--warmup", "3"]),
                        ("ort", ["node", os.path.join(REPO, "test", "e2e", "tools", "ort_run.js"),
                                 path, "--threads", str(a.threads), "--bench", str(a.iters),
                                 "--warmup", "3", "--opt-level", "all", "--ort-dir", a.ort_dir,
                                 "--input", path + ".x.npy"])]
                for who, argv in (jobs if rep % 2 == 0 else jobs[::-1]):
                    out = subprocess.run(argv, capture_output=True, text=True).stdout
                    t = run_bench.parse_kiln_bench(out) if who == "kiln" else run_bench.parse_ort(out)
                    if t:
                        (kiln_t if who == "kiln" else ort_t).append(t)
            k = statistics.median(kiln_t) if kiln_t else None
            o = statistics.median(ort_t) if ort_t else None
            rows.append((name, k, o, flops))
            if k and o:
                ratios.append(k / o)
            print(f"{name}: kiln {k} ms, ORT {o} ms", file=sys.stderr, flush=True)
    lines = [f"| case | kiln ms | ORT ms | kiln / ORT | kiln GFLOP/s |", "|---|---|---|---|---|"]
    for name, k, o, extra in rows:
        if k is None or o is None:
            lines.append(f"| {name} | failed | | | {extra} |")
        else:
            lines.append(f"| {name} | {k:.3f} | {o:.3f} | {k / o:.2f}x | {extra / k / 1e6:.0f} |")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"\nGeometric mean of kiln / ORT over {len(ratios)} cases: {geo:.2f}x "
                     f"({a.threads} thread{'s' if a.threads > 1 else ''}).")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
