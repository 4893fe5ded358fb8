#!/usr/bin/python3
"""kiln_rt misuse, concurrency and leak checks on a model compiled by kiln.

    /usr/bin/python3 test/unit/runtime/run_real_model_checks.py --kiln build/bin/kiln
        --checks KilnRuntimeRealModel --bad-abi libkiln_fake_bad_abi_model.so
        [--threads 4] [--iterations 50] [--loop 10000] [--rss-bound-kib 1024] [--keep]

Authors a small Conv + Relu + MatMul network with seeded weights and static
shapes, compiles it once with `kiln compile`, and runs the checks program
(RealModelChecks.cpp) on it: misuse returns statuses and messages, threads on
separate contexts reproduce the single-threaded outputs bit for bit, and a long
loop does not grow the resident set. The single-threaded output for a seeded
input is compared here with a float64 numpy reference (1e-4 relative to the
largest output). Exits non-zero on any failure.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

SEED = 2718
N, C, H, W = 2, 3, 12, 12
K, CLASSES = 8, 10


def build_model(path, rng):
    """Writes the model; returns its weights for the reference."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w1 = (rng.standard_normal((K, C, 3, 3)) * 0.3).astype(np.float32)
    b1 = (rng.standard_normal(K) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((K * H * W, CLASSES)) * 0.05).astype(np.float32)
    b2 = (rng.standard_normal(CLASSES) * 0.1).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Flatten", ["r"], ["f"], name="flatten", axis=1),
        helper.make_node("MatMul", ["f", "w2"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "b2"], ["y"], name="bias"),
    ]
    graph = helper.make_graph(
        nodes, "small_net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [N, C, H, W])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N, CLASSES])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return w1, b1, w2, b2


def reference(x, w1, b1, w2, b2):
    """The network in float64 numpy."""
    x, w1, w2 = x.astype(np.float64), w1.astype(np.float64), w2.astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((N, K, H, W))
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,kc->nkhw", xp[:, :, i:i + H, j:j + W], w1[:, :, i, j])
    conv += b1.astype(np.float64)[None, :, None, None]
    return np.maximum(conv, 0).reshape(N, -1) @ w2 + b2.astype(np.float64)


def libm_path():
    """The libm this interpreter has mapped: a real shared library that is not a model."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libm.so"):
                return path
    raise RuntimeError("libm is not mapped into this process")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--checks", required=True, help="the KilnRuntimeRealModel program")
    ap.add_argument("--bad-abi", required=True, help="a model library of another ABI")
    ap.add_argument("--threads", default="4")
    ap.add_argument("--iterations", default="50", help="runs per thread")
    ap.add_argument("--loop", default="10000", help="runs in the leak loop")
    ap.add_argument("--rss-bound-kib", default="1024")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    rng = np.random.default_rng(SEED)
    tmp = tempfile.mkdtemp(prefix="kiln_rt_real_")
    try:
        onnx_path = os.path.join(tmp, "small_net.onnx")
        weights = build_model(onnx_path, rng)
        lib = os.path.join(tmp, "small_net.so")
        r = subprocess.run([args.kiln, "compile", onnx_path, "-o", lib],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL kiln compile:", r.stderr.strip())
            return 1

        x = rng.standard_normal((N, C, H, W)).astype(np.float32)
        x_bin, y_bin = os.path.join(tmp, "x.bin"), os.path.join(tmp, "y.bin")
        x.tofile(x_bin)
        r = subprocess.run(
            [args.checks, "--model", lib, "--input", x_bin, "--output", y_bin,
             "--bad-abi", args.bad_abi, "--not-a-model", libm_path(),
             "--threads", args.threads, "--iterations", args.iterations,
             "--loop", args.loop, "--rss-bound-kib", args.rss_bound_kib],
            capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        sys.stdout.write(r.stderr)
        failed = r.returncode != 0
        if r.returncode < 0:
            print("FAIL the checks program died of signal %d" % -r.returncode)

        want = reference(x, *weights)
        got = np.fromfile(y_bin, dtype=np.float32) if os.path.exists(y_bin) else np.zeros(0)
        if got.size != want.size:
            print("FAIL numpy reference: got %d values, expected %d" % (got.size, want.size))
            failed = True
        else:
            err = np.max(np.abs(got.reshape(want.shape) - want)) / np.max(np.abs(want))
            ok = err <= 1e-4
            print("%-4s %-36s max error %.2e of the largest output (bound 1e-4)"
                  % ("ok" if ok else "FAIL", "single thread vs float64 numpy", err))
            failed |= not ok
        return 1 if failed else 0
    finally:
        if args.keep:
            print("files kept in", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
