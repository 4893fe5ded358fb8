#!/usr/bin/python3
"""One-op models over a sweep of shapes: kiln against ONNX Runtime, side by side.

    /usr/bin/python3 bench/shape_sweep.py [--threads 1] [--iters 20] [--repeats 3]
        [--kiln build/bin/kiln] [--ort-dir build/ort] [--compile-args "--cpu native"]
        [--only REGEX] [--out FILE.md] [--random N [--seed S]]

Where a code generator tuned on a few models falls off a cliff, it does so on
shapes: this sweeps 3x3 and 1x1 convolutions over channel counts and spatial
sizes (standard ResNet stages and odd ones, prime sizes included), grouped
convolutions, and MatMuls from GEMV to square and ragged sizes. Each model is
compiled once (--cpu native by default, as ORT picks its kernels for this
machine) and timed through kiln_bench against ort_run.js --bench at the same
thread count; every repeat runs both, alternating which goes first. Prints a
Markdown table of medians (ms), the kiln/ORT ratio and kiln's GFLOP/s, and
the geometric mean of the ratios; --out writes the same table to a file.
--random N replaces the fixed list by N shapes drawn with --seed: convolutions
of 1x1 to 7x7 kernels, strides 1 and 2, dilation, groups and depthwise,
non-square images, batch 2, and MatMuls / Gemms with a transposed B, so a
sweep can land on shapes no one picked.
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


def conv(c, f, hw, k=3, group=1, stride=1, w_=None, dilation=1, batch=1):
    ih, iw = hw, (w_ or hw)
    pad = dilation * (k // 2)
    span = dilation * (k - 1) + 1
    oh = (ih + 2 * pad - span) // stride + 1
    ow = (iw + 2 * pad - span) // stride + 1
    name = f"conv{k}x{k} {c}->{f} @{ih}" + (f"x{iw}" if iw != ih else "") + \
        (f" g{group}" if group > 1 else "") + (f" s{stride}" if stride > 1 else "") + \
        (f" d{dilation}" if dilation > 1 else "") + (f" n{batch}" if batch > 1 else "")
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((f, c // group, k, k)) * 0.1).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[k, k], pads=[pad] * 4,
                            strides=[stride] * 2, group=group, dilations=[dilation] * 2)
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("x", T.FLOAT, [batch, c, ih, iw])],
        [helper.make_tensor_value_info("y", T.FLOAT, [batch, f, oh, ow])],
        [numpy_helper.from_array(w, "w")])
    x = rng.standard_normal((batch, c, ih, iw)).astype(np.float32)
    return name, graph, x, 2.0 * batch * f * (c // group) * k * k * oh * ow


def matmul(m, k, n, trans_b=False):
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((n, k) if trans_b else (k, n)) * 0.1).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w"], ["y"], transB=1) if trans_b else \
        helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node], "matmul",
        [helper.make_tensor_value_info("x", T.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", T.FLOAT, [m, n])],
        [numpy_helper.from_array(w, "w")])
    x = rng.standard_normal((m, k)).astype(np.float32)
    name = f"{'gemm_tb' if trans_b else 'matmul'} {m}x{k}x{n}"
    return name, graph, x, 2.0 * m * k * n


def random_cases(n, seed):
    """`n` shapes drawn with `seed`, each 2 to 400 MFLOP (one op a few ms at most)."""
    rng = np.random.default_rng(seed)
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    cases = []
    while len(cases) < n:
        if rng.random() < 0.25:
            m = pick([1, int(rng.integers(2, 64)), int(rng.integers(64, 1200))])
            k, nn = int(rng.integers(16, 3000)), int(rng.integers(16, 3000))
            tb = bool(rng.random() < 0.3)
            if 2e6 <= 2 * m * k * nn <= 4e8:
                cases.append(lambda m=m, k=k, nn=nn, tb=tb: matmul(m, k, nn, tb))
            continue
        k = pick([1, 1, 3, 3, 3, 5, 7])
        stride = 2 if rng.random() < 0.25 else 1
        dil = 2 if k == 3 and stride == 1 and rng.random() < 0.1 else 1
        hw = int(rng.integers(5, 120))
        w_ = hw if rng.random() < 0.7 else int(rng.integers(5, 120))
        c = pick([3, int(rng.integers(4, 64)), int(rng.integers(64, 1024))])
        f = pick([int(rng.integers(4, 64)), int(rng.integers(64, 1024))])
        group = 1
        r = rng.random()
        if r < 0.12 and c > 3:
            group, f = c, c * pick([1, 1, 2])
        elif r < 0.2 and c > 3:
            group = pick([g for g in (2, 4, 8, 16, 32) if c % g == 0 and f % g == 0] or [1])
        batch = 2 if rng.random() < 0.1 else 1
        span = dil * (k - 1) + 1
        if min(hw, w_) + 2 * dil * (k // 2) < span:
            continue
        oh = (hw + 2 * dil * (k // 2) - span) // stride + 1
        ow = (w_ + 2 * dil * (k // 2) - span) // stride + 1
        flops = 2.0 * batch * f * (c // group) * k * k * oh * ow
        if 2e6 <= flops <= 4e8:
            cases.append(lambda c=c, f=f, hw=hw, k=k, group=group, stride=stride, w_=w_,
                         dil=dil, batch=batch: conv(c, f, hw, k, group, stride, w_, dil, batch))
    return cases


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
    ap.add_argument("--random", type=int, default=0, help="N random shapes instead of the list")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cases = random_cases(a.random, a.seed) if a.random else CASES
    rows, ratios = [], []
    with tempfile.TemporaryDirectory() as d:
        for i, make in enumerate(cases):
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
