#!/usr/bin/python3
"""kiln's GPU target on a machine with an NVIDIA GPU, in two steps.

    /usr/bin/python3 bench/gpu/gpu_bench.py prepare [--kiln build/bin/kiln] [--chip sm_90] [DIR]
    python3 bench/gpu/gpu_bench.py run [DIR]

`prepare` (where kiln is built; no GPU needed) compiles into DIR (default
bench/gpu/work, under 64 MiB): every ONNX node test that compiles for the chip,
with its inputs and expected outputs as .npy; a small CNN and an MLP with
seeded weights, with float64 NumPy outputs as references; and a
4096 x 4096 x 4096 MatMul in fp32 and TF32. `run` (on the GPU machine: needs a
C compiler, python3 with numpy, and for the cuBLAS figure nvcc) builds kiln_rt
and its two tools from runtime/, runs every library on the GPU, compares with
the references (node tests: rtol 1e-3, atol 1e-5 as the node suite; models:
1e-3 relative), times the models and the MatMul, times cuBLAS on the same
MatMul, and prints a table. Without a CUDA driver and device `run` stops at
once with the reason. bench/gpu/run_on_gpu.sh runs `run` as one command.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
NODE_DATA = "/usr/share/libonnx-testdata/data/node"


def sh(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def prepare(args):
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper, TensorProto
    sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "tools"))
    import e2e_common as e2e  # noqa: E402

    out = args.dir
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "node"))
    kiln, chip = args.kiln, args.chip
    names = sorted(os.listdir(NODE_DATA))
    kept = []
    for name in names:
        src = os.path.join(NODE_DATA, name)
        dst = os.path.join(out, "node", name)
        os.makedirs(dst)
        r = sh([kiln, "compile", os.path.join(src, "model.onnx"), "-o",
                os.path.join(dst, "model.so"), "--target", chip])
        if r.returncode != 0:
            shutil.rmtree(dst)
            continue
        os.remove(os.path.join(dst, "model.h"))
        ds = os.path.join(src, "test_data_set_0")
        for kind in ("input", "output"):
            for k, p in enumerate(e2e.numbered_files(ds, kind)):
                np.save(os.path.join(dst, f"{kind}_{k}.npy"), e2e.load_tensor(p))
        kept.append(name)
    rng = np.random.default_rng(0)
    models = {}

    def save(name, graph, inputs, reference):
        path = os.path.join(out, name + ".onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        weights = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in graph.initializer}
        ref = [reference(weights, *[v.astype(np.float64) for v in inputs])]
        for k, v in enumerate(inputs):
            np.save(os.path.join(out, f"{name}.input_{k}.npy"), v)
        for k, v in enumerate(ref):
            np.save(os.path.join(out, f"{name}.ref_{k}.npy"), v)
        for precision in ("fp32", "tf32"):
            lib = os.path.join(out, f"{name}.{precision}.so")
            r = sh([kiln, "compile", path, "-o", lib, "--target", chip,
                    "--precision", precision])
            if r.returncode != 0:
                sys.exit(f"prepare: {name}: {r.stderr.strip()}")
            os.remove(lib[:-3] + ".h")
        os.remove(path)
        models[name] = len(inputs)

    def init(name, shape, scale):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name)

    def conv3x3(x, w, b):  # stride 1, pads 1, float64
        n, c, h, wd = x.shape
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        y = np.zeros((n, w.shape[0], h, wd))
        for i in range(3):
            for j in range(3):
                y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
        return y + b[None, :, None, None]

    def cnn_ref(p, x):
        r = np.maximum(conv3x3(np.maximum(conv3x3(x, p["w1"], p["b1"]), 0), p["w2"], p["b2"]), 0)
        return r.mean(axis=(2, 3)) @ p["wf"].T + p["bf"]

    def mlp_ref(p, x):
        o = np.tanh(x @ p["w1"] + p["b1"]) @ p["w2"]
        e = np.exp(o - o.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    # A small CNN: conv-relu x2, pool, gemm.
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1)]
    inits = [init("w1", (32, 3, 3, 3), 0.2), init("b1", (32,), 0.1),
             init("w2", (64, 32, 3, 3), 0.06), init("b2", (64,), 0.1),
             init("wf", (10, 64), 0.1), init("bf", (10,), 0.1)]
    save("cnn", helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 64, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits),
        [rng.standard_normal((1, 3, 64, 64)).astype(np.float32)], cnn_ref)
    # An MLP with softmax: MatMul+bias+Gelu-ish (tanh) x2.
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Tanh", ["hb"], ["t"]),
             helper.make_node("MatMul", ["t", "w2"], ["o"]),
             helper.make_node("Softmax", ["o"], ["y"], axis=-1)]
    inits = [init("w1", (512, 1024), 0.04), init("b1", (1024,), 0.1),
             init("w2", (1024, 256), 0.03)]
    save("mlp", helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 512])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 256])], inits),
        [rng.standard_normal((64, 512)).astype(np.float32)], mlp_ref)
    # The MatMul cuBLAS is timed on (operands are inputs: nothing to carry).
    n = 4096
    path = os.path.join(out, "matmul.onnx")
    onnx.save(helper.make_model(helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])], "matmul",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])]),
        opset_imports=[helper.make_opsetid("", 17)]), path)
    for precision in ("fp32", "tf32"):
        lib = os.path.join(out, f"matmul.{precision}.so")
        r = sh([kiln, "compile", path, "-o", lib, "--target", chip, "--precision", precision])
        if r.returncode != 0:
            sys.exit(f"prepare: matmul: {r.stderr.strip()}")
        os.remove(lib[:-3] + ".h")
    os.remove(path)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"chip": chip, "node_tests": kept, "models": models, "matmul": n}, f)
    size = sum(os.path.getsize(os.path.join(d, x)) for d, _, fs in os.walk(out) for x in fs)
    print(f"prepared {len(kept)} node tests, {len(models)} models and the MatMul "
          f"in {out} ({size / 2**20:.1f} MiB)")


def build_runtime(work):
    inc = os.path.join(ROOT, "runtime", "include")
    srcs = [os.path.join(ROOT, "runtime", "src", f)
            for f in sorted(os.listdir(os.path.join(ROOT, "runtime", "src"))) if f.endswith(".c")]
    lib = os.path.join(work, "libkiln_rt.so")
    steps = [["cc", "-O2", "-std=c11", "-fPIC", "-shared", "-I", inc, "-o", lib] + srcs
             + ["-ldl", "-lpthread", "-lm"]]
    for tool in ("kiln_run_npy", "kiln_measure"):
        steps.append(["cc", "-O2", "-std=c11", "-I", inc,
                      os.path.join(ROOT, "runtime", "tools", tool + ".c"), "-o",
                      os.path.join(work, tool), "-L", work, "-lkiln_rt",
                      f"-Wl,-rpath,{work}", "-lm"])
    for argv in steps:
        r = sh(argv)
        if r.returncode != 0:
            sys.exit(f"run: building kiln_rt failed: {' '.join(argv[:3])}...\n{r.stderr}")


def close(got, ref, rtol, atol):
    import numpy as np
    if got.shape != ref.shape:
        return f"shape {got.shape} vs {ref.shape}"
    if got.dtype.kind in "fc":
        ok = np.isclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            return f"{(~ok).sum()} of {ok.size} differ (max |d| {np.nanmax(np.abs(got - ref)):.3g})"
        return ""
    return "" if np.array_equal(got, ref) else "values differ"


def median_ms(work, lib):
    r = sh([os.path.join(work, "kiln_measure"), lib, "--warmup", "3", "--runs", "20"])
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"
    for line in r.stdout.splitlines():
        if line.startswith("median_ns"):
            return int(line.split()[1]) / 1e6, ""
    return None, "no median"


def run(args):
    import numpy as np
    work, d = os.path.abspath(os.path.join(args.dir, "bin")), os.path.abspath(args.dir)
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    os.makedirs(work, exist_ok=True)
    build_runtime(work)
    runner = os.path.join(work, "kiln_run_npy")
    # One library first: without a driver or device this is where it stops.
    probe = os.path.join(d, "mlp.fp32.so")
    r = sh([runner, probe, os.path.join(d, "mlp.input_0.npy"), "-o", os.path.join(work, "probe.npy")])
    if r.returncode != 0:
        sys.exit("run: cannot run a GPU library here: " + (r.stderr.strip() or r.stdout.strip()))

    passed, failed = 0, []
    for name in manifest["node_tests"]:
        t = os.path.join(d, "node", name)
        ins = sorted(x for x in os.listdir(t) if x.startswith("input_"))
        refs = sorted(x for x in os.listdir(t) if x.startswith("output_"))
        outs = [os.path.join(work, f"out_{k}.npy") for k in range(len(refs))]
        argv = [runner, os.path.join(t, "model.so")] + [os.path.join(t, x) for x in ins]
        for o in outs:
            argv += ["-o", o]
        r = sh(argv, timeout=120)
        why = "" if r.returncode == 0 else "run: " + (r.stderr.strip().splitlines() or ["?"])[-1]
        for o, ref in zip(outs, refs):
            if why:
                break
            why = close(np.load(o), np.load(os.path.join(t, ref)), 1e-3, 1e-5)
        if why:
            failed.append((name, why))
        else:
            passed += 1
    print(f"node tests on the GPU ({manifest['chip']}): {passed} passed, {len(failed)} failed")
    for name, why in failed:
        print(f"  FAIL {name}: {why}")

    rows = []
    for name, n_inputs in manifest["models"].items():
        ins = [os.path.join(d, f"{name}.input_{k}.npy") for k in range(n_inputs)]
        ref = np.load(os.path.join(d, f"{name}.ref_0.npy"))
        for precision in ("fp32", "tf32"):
            lib = os.path.join(d, f"{name}.{precision}.so")
            out = os.path.join(work, f"{name}.{precision}.npy")
            r = sh([runner, lib] + ins + ["-o", out])
            err = "run failed" if r.returncode else \
                f"{np.abs(np.load(out) - ref).max() / max(np.abs(ref).max(), 1e-30):.2e}"
            ms, why = median_ms(work, lib)
            rows.append((f"{name} {precision}", f"{ms:.3f}" if ms else why, err))
    n = manifest["matmul"]
    flops = 2.0 * n ** 3
    for precision in ("fp32", "tf32"):
        ms, why = median_ms(work, os.path.join(d, f"matmul.{precision}.so"))
        rows.append((f"MatMul {n} {precision} (kiln)", f"{ms:.3f}" if ms else why,
                     f"{flops / (ms * 1e-3) / 1e12:.1f} TFLOP/s" if ms else ""))
    cu = os.path.join(work, "cublas_gemm")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    r = sh([nvcc, "-O2", os.path.join(HERE, "cublas_gemm.cu"), "-lcublas", "-o", cu]) \
        if os.path.exists(nvcc) else subprocess.CompletedProcess([], 1, "", "nvcc not found")
    if r.returncode == 0:
        r = sh([cu, str(n)])
        for line in r.stdout.splitlines():
            _, mode, _, ms, tf = line.split()
            rows.append((f"MatMul {n} {mode} (cuBLAS)", ms, f"{tf} TFLOP/s"))
    else:
        rows.append(("cuBLAS", "nvcc failed", r.stderr.strip()[:60]))
    print(f"\n| case | median ms (incl. host copies) | max rel. error vs float64 / rate |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0 if not failed else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=["prepare", "run"])
    ap.add_argument("dir", nargs="?", default=os.path.join(HERE, "work"))
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    ap.add_argument("--chip", default="sm_90")
    args = ap.parse_args()
    return prepare(args) if args.step == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
