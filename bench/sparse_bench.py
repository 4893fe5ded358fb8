#!/usr/bin/python3
"""Sparse weights: kiln's block-sparse kernel against its dense one.

    /usr/bin/python3 bench/sparse_bench.py [--kiln build/bin/kiln] [--threads 1]
        [--iters 40] [--repeats 3] [--cpu native] [--work-dir DIR]

One layer (MatMul 64 x 1024 x 1024 against a constant) and one whole model
(an MLP of three 1024-wide MatMul+bias+Relu layers, batch 32) with seeded
weights, pruned by `kiln prune` at 50/75/90 % (unstructured, 2:4, block:4x4,
block:16x1), each compiled twice with --cpu native: `--schedule
sparse_weights=0` (dense) and the default (the pass's estimate picks), and
timed with kiln_bench, dense and chosen interleaved per repeat. Prints a
Markdown table: pattern, sparsity, the kernel chosen and the segment density
(from --remarks), dense ms, chosen ms and the speed-up. Outputs are checked
against float64 NumPy before timing.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CASES = [("unstructured", 0.5), ("unstructured", 0.75), ("unstructured", 0.9),
         ("2:4", 0.5), ("block:4x4", 0.5), ("block:4x4", 0.75), ("block:4x4", 0.9),
         ("block:16x1", 0.5), ("block:16x1", 0.75), ("block:16x1", 0.9)]


def layer_model(path, rng):
    w = rng.standard_normal((1024, 1024)).astype(np.float32) * 0.03
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")], "layer",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 1024])],
                          [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return rng.standard_normal((64, 1024)).astype(np.float32)


def mlp_model(path, rng):
    nodes, inits, prev = [], [], "x"
    for i in range(3):
        inits += [numpy_helper.from_array(
                      (rng.standard_normal((1024, 1024)) * 0.03).astype(np.float32), f"w{i}"),
                  numpy_helper.from_array(
                      (rng.standard_normal(1024) * 0.1).astype(np.float32), f"b{i}")]
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"fc{i}"),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]),
                  helper.make_node("Relu", [f"a{i}"], [f"h{i}"])]
        prev = f"h{i}"
    g = helper.make_graph(nodes, "mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 1024])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [32, 1024])],
                          inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return rng.standard_normal((32, 1024)).astype(np.float32)


def reference(path, x):
    m = onnx.load(path)
    w = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in m.graph.initializer}
    v = {"x": x.astype(np.float64)}
    for n in m.graph.node:
        a = [v[i] if i in v else w[i] for i in n.input]
        v[n.output[0]] = {"MatMul": lambda: a[0] @ a[1], "Add": lambda: a[0] + a[1],
                          "Relu": lambda: np.maximum(a[0], 0)}[n.op_type]()
    return v[m.graph.output[0].name]


def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv[:3])}...: {r.stderr.strip()}")
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--kiln", default=os.path.join(root, "build", "bin", "kiln"))
    ap.add_argument("--bench", default=os.path.join(root, "build", "bin", "kiln_bench"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cpu", default="native")
    ap.add_argument("--work-dir", default=None)
    args = ap.parse_args()
    work = args.work_dir or tempfile.mkdtemp(prefix="kiln-sparse-")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    print(f"threads {args.threads}, --cpu {args.cpu}; ms are medians of {args.repeats} "
          f"repeats of kiln_bench --iters {args.iters}\n")
    print("| model | pattern | sparsity | kernel chosen (segment density) | dense ms | "
          "chosen ms | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for name, make in (("MatMul 64x1024x1024", layer_model), ("MLP 3x1024, batch 32", mlp_model)):
        base = os.path.join(work, name.split()[0].lower() + ".onnx")
        x = make(base, rng)
        xin = base + ".x.npy"
        np.save(xin, x)
        for pattern, sparsity in CASES:
            pruned = base[:-5] + f".{pattern.replace(':', '')}.{int(sparsity * 100)}.onnx"
            run([args.kiln, "prune", base, "--pattern", pattern, "--sparsity", str(sparsity),
                 "-o", pruned])
            libs = {}
            for mode in ("dense", "auto"):
                lib = pruned[:-5] + f".{mode}.so"
                argv = [args.kiln, "compile", pruned, "-o", lib, "--cpu", args.cpu, "--remarks"]
                if mode == "dense":
                    argv += ["--schedule", "sparse_weights=0"]
                r = run(argv)
                if mode == "auto":
                    found = re.findall(r"(block-sparse kernel|dense kernel kept): ([0-9.]+%)",
                                       r.stderr)
                    chosen = ", ".join(f"{'sparse' if k.startswith('block') else 'dense'} "
                                       f"({d})" for k, d in found) or "-"
                libs[mode] = lib
                out = lib + ".y.npy"
                run([args.kiln, "run", lib, "--input", xin, "--output", out])
                ref = reference(pruned, x)
                err = np.abs(np.load(out) - ref).max() / np.abs(ref).max()
                if err > 1e-5:
                    sys.exit(f"{lib}: max relative error {err:.2e}")
            times = {"dense": [], "auto": []}
            for _ in range(args.repeats):
                for mode in ("dense", "auto"):
                    r = run([args.bench, libs[mode], "--threads", str(args.threads),
                             "--iters", str(args.iters), "--warmup", "5"])
                    times[mode].append(float(re.search(r"median=([0-9.]+)", r.stdout).group(1)))
            d, a = statistics.median(times["dense"]), statistics.median(times["auto"])
            print(f"| {name} | {pattern} | {int(sparsity * 100)} % | {chosen} | {d:.3f} | "
                  f"{a:.3f} | {d / a:.2f}x |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
