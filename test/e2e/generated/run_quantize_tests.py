#!/usr/bin/python3
"""`kiln quantize` end to end: the QDQ model it writes, run by ONNX Runtime and by kiln.

    /usr/bin/python3 test/e2e/generated/run_quantize_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--keep]

Each case is a small fp32 model with seeded random weights (a CNN with Conv+Relu, a
strided Conv and a Gemm; an MLP of MatMul+Add+Relu and Gemm with transB), calibrated on
seeded samples with every method, per tensor and per channel. Checks per case:
- ONNX Runtime (graph optimisations off: it computes the Q/DQ nodes as written) runs the
  file, so the output is a standard QDQ model;
- kiln's library of the QDQ model matches ONNX Runtime on held-out inputs within
  --steps quantization steps of the last quantized activation times the largest
  row sum of |W| of the final layer (a wrong scale, zero point or rounding moves
  the output by many steps);
- with minmax and percentile calibration, the quantized model stays near the fp32 model
  computed in float64 numpy (max error relative to the output's scale <= --fp32-tol);
  entropy calibration clips harder by design (up to 1 % of the values), and these small
  random models have few samples per histogram, so its distance (and every top-1
  agreement) is printed.
Prints one line per case and `N passed, N failed`.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 99


def conv2d(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j])
    return y + b.reshape(1, -1, 1, 1)


def cnn(rng):
    from onnx import TensorProto as T, helper, numpy_helper as nh
    w1 = rng.standard_normal((8, 3, 3, 3)) * 0.3
    b1 = rng.standard_normal(8) * 0.1
    w2 = rng.standard_normal((16, 8, 3, 3)) * 0.2
    b2 = rng.standard_normal(16) * 0.1
    wf = rng.standard_normal((16, 10)) * 0.5
    bf = rng.standard_normal(10) * 0.1
    weights = dict(w1=w1, b1=b1, w2=w2, b2=b2, wf=wf, bf=bf)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", pads=[1] * 4,
                              strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], name="fc")]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", T.FLOAT, [1, 3, 12, 12])],
        [helper.make_tensor_value_info("y", T.FLOAT, [1, 10])],
        initializer=[nh.from_array(v.astype(np.float32), k) for k, v in weights.items()])

    def reference(x):
        r1 = np.maximum(conv2d(x, w1, b1, 1, 1), 0)
        g = conv2d(r1, w2, b2, 2, 1).mean(axis=(2, 3))
        return g @ wf + bf
    return graph, reference, (1, 3, 12, 12), wf.T


def mlp(rng):
    from onnx import TensorProto as T, helper, numpy_helper as nh
    w1 = rng.standard_normal((32, 48)) * 0.2
    b1 = rng.standard_normal(48) * 0.1
    w2 = rng.standard_normal((10, 48)) * 0.3  # Gemm with transB = 1
    b2 = rng.standard_normal(10) * 0.1
    weights = dict(w1=w1, b1=b1, w2=w2, b2=b2)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm"),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], name="fc", transB=1)]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", T.FLOAT, [4, 32])],
        [helper.make_tensor_value_info("y", T.FLOAT, [4, 10])],
        initializer=[nh.from_array(v.astype(np.float32), k) for k, v in weights.items()])

    def reference(x):
        return np.maximum(x @ w1 + b1, 0) @ w2.T + b2
    return graph, reference, (4, 32), w2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--steps", type=float, default=1.0)
    ap.add_argument("--fp32-tol", type=float, default=0.1)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if args.ort_dir:
        args.ort_dir = os.path.abspath(args.ort_dir)
    import onnx
    from onnx import helper, numpy_helper as nh
    root = tempfile.mkdtemp(prefix="kiln-quantize-")
    passed = failed = 0
    for name, build in (("cnn", cnn), ("mlp", mlp)):
        rng = np.random.default_rng(SEED)
        graph, reference, shape, last_w = build(rng)
        work = os.path.join(root, name)
        os.makedirs(os.path.join(work, "calib"))
        model = os.path.join(work, "model.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), model)
        for i in range(8):
            np.save(os.path.join(work, "calib", f"{i}.npy"),
                    rng.standard_normal(shape).astype(np.float32))
        evals = [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]
        for method in ("minmax", "percentile", "entropy"):
            for per_channel in (False, True):
                label = f"{name} {method}{' per-channel' if per_channel else ''}"
                tag = f"{method}{'_pc' if per_channel else ''}"
                qpath = os.path.join(work, f"{tag}.onnx")
                argv = [args.kiln, "quantize", model, "--calib", os.path.join(work, "calib"),
                        "-o", qpath, "--method", method] + (["--per-channel"] if per_channel
                                                             else [])
                r = e2e.run_command(argv, timeout=300)
                so = os.path.join(work, f"{tag}.so")
                if r.returncode == 0:
                    r = e2e.run_command([args.kiln, "compile", qpath, "-o", so], timeout=300)
                if r.returncode != 0:
                    print(f"FAIL {label}: {r.first_error_line()}")
                    failed += 1
                    continue
                q = onnx.load(qpath)
                inits = {t.name: nh.to_array(t) for t in q.graph.initializer}
                # The activation that enters the final layer and its step.
                fc = next(n for n in q.graph.node if n.name == "fc")
                dq = next(n for n in q.graph.node if n.output[0] == fc.input[0])
                step = float(inits[dq.input[1]])
                bound = args.steps * step * np.abs(last_w).sum(axis=1).max()
                problems, worst, fp32_worst, top1 = [], 0.0, 0.0, 0
                for k, x in enumerate(evals):
                    xin = os.path.join(work, f"{tag}_x{k}.npy")
                    np.save(xin, x)
                    rr, paths = e2e.ort_run(qpath, [xin], os.path.join(work, f"{tag}_ort{k}"),
                                            ort_dir=args.ort_dir,
                                            extra=["--opt-level", "disabled"])
                    if rr.returncode != 0:
                        problems.append(f"ONNX Runtime: {rr.first_error_line()}")
                        break
                    out = os.path.join(work, f"{tag}_kiln{k}.npy")
                    rk = e2e.run_command([args.kiln, "run", so, "--input", xin, "--output", out])
                    if rk.returncode != 0:
                        problems.append(f"kiln run: {rk.first_error_line()}")
                        break
                    ort, got = np.load(paths[0]), np.load(out)
                    worst = max(worst, float(np.abs(got - ort).max()))
                    ref = reference(x.astype(np.float64))
                    fp32_worst = max(fp32_worst, e2e.relative_error(got, ref)[1])
                    top1 += int((got.argmax(-1) == ref.argmax(-1)).all())
                if not problems:
                    if not worst <= bound:
                        problems.append(f"kiln vs ONNX Runtime {worst:.3g} > {bound:.3g}")
                    if method != "entropy" and not fp32_worst <= args.fp32_tol:
                        problems.append(f"vs fp32: max rel err {fp32_worst:.3g}")
                ok = not problems
                print(f"{'PASS' if ok else 'FAIL'} {label}: " + ("; ".join(problems) if problems
                      else f"kiln vs ORT {worst:.3g} (bound {bound:.3g}), vs fp32 "
                           f"{fp32_worst:.3g}, top-1 {top1}/{len(evals)}"), flush=True)
                passed += ok
                failed += not ok
    return e2e.finish(passed, failed, root, args.keep)


if __name__ == "__main__":
    sys.exit(main())
