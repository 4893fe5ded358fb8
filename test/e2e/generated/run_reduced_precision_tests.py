#!/usr/bin/python3
"""`kiln compile --precision bf16|fp16` against a float64 reference that rounds the same way.

    /usr/bin/python3 test/e2e/generated/run_reduced_precision_tests.py --kiln build/bin/kiln
        [--keep]

Each case is a small float model with seeded random weights, compiled for this machine's
CPU (`--cpu native`) at bf16 (where the CPU has AVX-512 BF16) and fp16 (where it has
AVX-512); where the CPU has AMX, bf16 is compiled twice: with AMX tiles (the default) and
with them turned off (`--features -amx-tile,...`), so that both kernels are checked. The reference is a float64 NumPy evaluation of the same graph in which the
inputs and weights of every reduced contraction (ungrouped Conv; MatMul and Gemm with a
constant 2-D weight) are first rounded to bf16 or fp16, round half to even, as the
precision promises: products of rounded values are exact in fp32, so kiln must match
- within 1e-5 of the output's largest magnitude for one-contraction models;
- within 5e-4 (bf16) or 1e-4 (fp16) for models of several layers, where a layer's fp32
  output can round to the neighbouring bf16/fp16 value in kiln and not in the reference
  (one step of 2^-8 or 2^-11 on an element of the next layer's input);
and the outputs must differ from the unrounded float64 result by more than the tolerance
(else the precision had no effect and the check could not fail).
The assembly must hold tdpbf16ps (bf16 with AMX), vdpbf16ps (bf16 without) or the f16
widening vcvtph2ps (fp16) exactly when a case has a reduced contraction; depthwise and grouped convolutions and products
of two computed tensors stay fp32.
Prints one line per case and precision and `N passed, N failed`.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 4321


def round_bf16(a):
    """float64 -> the nearest bf16 (via float32, which holds every input exactly), RNE."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def rounder(precision):
    if precision == "bf16":
        return round_bf16
    if precision == "fp16":
        return lambda a: np.asarray(a, np.float32).astype(np.float16).astype(np.float64)
    return lambda a: np.asarray(a, np.float64)


# --- A float64 evaluator for the ops of these models --------------------------------


def conv(x, w, b, attrs, rnd):
    group = attrs.get("group", 1)
    if group == 1:
        x, w = rnd(x), rnd(w)
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    st = attrs.get("strides", [1, 1])
    dl = attrs.get("dilations", [1, 1])
    p = attrs.get("pads", [0, 0, 0, 0])
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    oh = (h + p[0] + p[2] - (kh - 1) * dl[0] - 1) // st[0] + 1
    ow = (wd + p[1] + p[3] - (kw - 1) * dl[1] - 1) // st[1] + 1
    y = np.zeros((n, f, oh, ow))
    fg = f // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dl[0]:i * dl[0] + st[0] * (oh - 1) + 1:st[0],
                           j * dl[1]:j * dl[1] + st[1] * (ow - 1) + 1:st[1]]
                y[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def evaluate(model, x, precision):
    """The graph's output in float64, reduced contractions rounded by `precision`."""
    from onnx import numpy_helper as nh
    rnd = rounder(precision)
    env = {i.name: nh.to_array(i).astype(np.float64) for i in model.graph.initializer}
    consts = set(env)
    env[model.graph.input[0].name] = x.astype(np.float64)
    for node in model.graph.node:
        attrs = {a.name: (list(a.ints) if a.ints else a.f if a.type == 1 else a.i)
                 for a in node.attribute}
        ins = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Conv":
            y = conv(ins[0], ins[1], ins[2] if len(ins) > 2 else None, attrs, rnd)
        elif op == "MatMul":
            r = rnd if node.input[1] in consts and ins[1].ndim == 2 else rounder("fp32")
            y = np.matmul(r(ins[0]), r(ins[1]))
        elif op == "Gemm":
            bm = ins[1].T if attrs.get("transB") else ins[1]
            y = attrs.get("alpha", 1.0) * (rnd(ins[0]) @ rnd(bm))
            if len(ins) > 2:
                y = y + attrs.get("beta", 1.0) * ins[2]
        elif op == "Add":
            y = ins[0] + ins[1]
        elif op == "Relu":
            y = np.maximum(ins[0], 0)
        elif op == "GlobalAveragePool":
            y = ins[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Identity":
            y = ins[0]
        elif op == "Flatten":
            y = ins[0].reshape(ins[0].shape[0], -1)
        elif op == "Transpose":
            y = np.transpose(ins[0], attrs["perm"])
        else:
            raise ValueError(f"no reference for {op}")
        env[node.output[0]] = y
    return env[model.graph.output[0].name]


# --- Models --------------------------------------------------------------------------


def make_model(rng, spec):
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh
    inits, nodes = [], []

    def weight(name, shape, fan_in):
        a = (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
        inits.append(nh.from_array(a, name))
        return name

    def bias(name, n):
        inits.append(nh.from_array((rng.standard_normal(n) * 0.1).astype(np.float32), name))
        return name

    kind = spec["op"]
    if kind == "conv":
        f, cg, kh, kw = spec["w"]
        attrs = {k: spec[k] for k in ("strides", "pads", "dilations", "group") if k in spec}
        ins = ["x", weight("w", spec["w"], cg * kh * kw)]
        if spec.get("bias", True):
            ins.append(bias("b", f))
        nodes.append(helper.make_node("Conv", ins, ["c"], **attrs))
        y = "c"
        if spec.get("relu"):
            nodes.append(helper.make_node("Relu", [y], ["r"]))
            y = "r"
    elif kind == "matmul":
        k, n = spec["w"]
        nodes.append(helper.make_node("MatMul", ["x", weight("w", (k, n), k)], ["m"]))
        y = "m"
        if spec.get("bias"):
            nodes.append(helper.make_node("Add", [y, bias("b", n)], ["a"]))
            y = "a"
        if spec.get("relu"):
            nodes.append(helper.make_node("Relu", [y], ["r"]))
            y = "r"
    elif kind == "gemm":
        k, n = spec["w"]
        shape = (n, k) if spec.get("transB") else (k, n)
        nodes.append(helper.make_node(
            "Gemm", ["x", weight("w", shape, k), bias("b", n)], ["g"],
            transB=int(spec.get("transB", 0)), alpha=spec.get("alpha", 1.0)))
        y = "g"
    elif kind == "attention":
        # x [S, D] -> q = x Wq, k = x Wk: the score product q k^T has no constant
        # weight and stays fp32; the projections are reduced.
        s, d = spec["x"]
        nodes += [helper.make_node("MatMul", ["x", weight("wq", (d, d), d)], ["q"]),
                  helper.make_node("MatMul", ["x", weight("wk", (d, d), d)], ["k"]),
                  helper.make_node("Transpose", ["k"], ["kt"], perm=[1, 0]),
                  helper.make_node("MatMul", ["q", "kt"], ["y0"])]
        y = "y0"
    elif kind == "net":
        # conv stem (3 channels), two 3x3 convs with a residual Add, a depthwise and
        # a grouped conv (fp32), pooling and a classifier Gemm: layouts cancel between layers.
        c = spec["c"]
        nodes += [
            helper.make_node("Conv", ["x", weight("w0", (c, 3, 3, 3), 27), bias("b0", c)],
                             ["c0"], strides=[2, 2], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c0"], ["r0"]),
            helper.make_node("Conv", ["r0", weight("w1", (c, c, 3, 3), 9 * c),
                                      bias("b1", c)], ["c1"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c1"], ["r1"]),
            helper.make_node("Conv", ["r1", weight("w2", (c, c, 3, 3), 9 * c)], ["c2"],
                             pads=[1, 1, 1, 1]),
            helper.make_node("Add", ["c2", "r0"], ["s"]),
            helper.make_node("Relu", ["s"], ["r2"]),
            helper.make_node("Conv", ["r2", weight("w3", (c, 1, 3, 3), 9), bias("b3", c)],
                             ["c3"], group=c, pads=[1, 1, 1, 1]),
            # A grouped conv stays fp32 beside the reduced ones (RegNet, ResNeXt).
            helper.make_node("Conv", ["c3", weight("w4", (c, 8, 3, 3), 72)], ["c4"],
                             group=c // 8, pads=[1, 1, 1, 1]),
            helper.make_node("GlobalAveragePool", ["c4"], ["p"]),
            helper.make_node("Flatten", ["p"], ["fl"]),
            helper.make_node("Gemm", ["fl", weight("wf", (10, c), c), bias("bf", 10)],
                             ["y0"], transB=1)]
        y = "y0"
    nodes.append(helper.make_node("Identity", [y], ["y"]))
    graph = helper.make_graph(
        nodes, spec["name"], [helper.make_tensor_value_info("x", T.FLOAT, spec["x"])],
        [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    return model


CASES = [
    dict(name="conv3x3_relu", op="conv", x=[1, 16, 14, 14], w=(32, 16, 3, 3),
         pads=[1, 1, 1, 1], relu=True),
    dict(name="conv3x3_s2_c3", op="conv", x=[1, 3, 23, 17], w=(24, 3, 3, 3),
         strides=[2, 2]),
    dict(name="conv1x1_n40_batch2", op="conv", x=[2, 64, 9, 11], w=(40, 64, 1, 1)),
    dict(name="conv1x1_odd_c", op="conv", x=[1, 27, 8, 8], w=(33, 27, 1, 1), bias=False),
    dict(name="conv5x5_asym_dil", op="conv", x=[1, 12, 19, 21], w=(17, 12, 5, 5),
         pads=[1, 2, 2, 1], dilations=[1, 2]),
    dict(name="conv3x3_threads", op="conv", x=[1, 64, 56, 56], w=(64, 64, 3, 3),
         pads=[1, 1, 1, 1], relu=True),
    dict(name="matmul_3d_odd_k", op="matmul", x=[3, 7, 97], w=(97, 50), bias=True),
    dict(name="matmul_vector", op="matmul", x=[64], w=(64, 17)),
    dict(name="matmul_bias_relu", op="matmul", x=[33, 64], w=(64, 128), bias=True,
         relu=True),
    dict(name="gemm_transB_alpha", op="gemm", x=[5, 200], w=(200, 130), transB=True,
         alpha=0.5),
    dict(name="attention_scores", op="attention", x=[24, 32]),
    dict(name="small_net", op="net", x=[2, 3, 32, 32], c=32, layers=True),
    # Must stay fp32: depthwise and grouped.
    dict(name="conv_depthwise_fp32", op="conv", x=[1, 16, 10, 10], w=(16, 1, 3, 3),
         group=16, pads=[1, 1, 1, 1], reduced=False),
    dict(name="conv_grouped_fp32", op="conv", x=[1, 8, 8, 8], w=(8, 4, 3, 3), group=2,
         pads=[1, 1, 1, 1], reduced=False),
]

MARKERS = {"bf16-amx": "tdpbf16ps", "bf16": "vdpbf16ps", "fp16": "vcvtph2ps"}
NO_TILES = ["--features=-amx-tile,-amx-int8,-amx-bf16"]
# A layer's input element that rounds to the neighbouring value moves an output by
# about one step (2^-8, 2^-11) over sqrt(K) of the range: 2e-4 and 3e-5 at K = 288.
LAYER_TOLERANCE = {"bf16": 5e-4, "fp16": 1e-4}


def check(args, root, spec, variant):
    precision = variant.split("-")[0]
    import onnx
    rng = np.random.default_rng(SEED + len(spec["name"]))
    model = make_model(rng, spec)
    work = os.path.join(root, f"{spec['name']}_{variant}")
    os.makedirs(work)
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    so, asm = os.path.join(work, "model.so"), os.path.join(work, "model.s")
    r = e2e.run_command([args.kiln, "compile", path, "-o", so, "--cpu", "native",
                         "--precision", precision, "--emit-asm", asm] +
                        ([] if variant.endswith("amx") else NO_TILES), timeout=300)
    if r.returncode != 0:
        return [f"compile: {r.first_error_line()}"], ""
    problems = []
    with open(asm) as f:
        text = f.read()
    reduced = MARKERS[variant] in text
    if reduced != spec.get("reduced", True):
        problems.append(f"reduced product {'taken' if reduced else 'not taken'}")
    tol = LAYER_TOLERANCE[precision] if spec.get("layers") else 1e-5
    worst = apart = 0.0
    for k in range(2):
        x = rng.standard_normal(spec["x"]).astype(np.float32)
        xin, out = os.path.join(work, f"x{k}.npy"), os.path.join(work, f"y{k}.npy")
        np.save(xin, x)
        rk = e2e.run_command([args.kiln, "run", so, "--input", xin, "--output", out])
        if rk.returncode != 0:
            return problems + [f"kiln run: {rk.first_error_line()}"], ""
        got = np.load(out).astype(np.float64)
        ref = evaluate(model, x, precision if spec.get("reduced", True) else "fp32")
        exact = evaluate(model, x, "fp32")
        if got.shape != ref.shape:
            return problems + [f"shape {got.shape} != {ref.shape}"], ""
        scale = max(np.abs(ref).max(), 1e-3)
        err = np.abs(got - ref).max() / scale
        worst = max(worst, err)
        apart = max(apart, np.abs(got - exact).max() / scale)
        if err > tol:
            problems.append(f"max err {err:.3g} of the output's range > {tol:g}")
            break
    if spec.get("reduced", True) and apart <= tol:
        problems.append(f"output within {apart:.3g} of the unrounded result: the "
                        "precision had no effect")
    return problems, f"max err {worst:.3g}, {apart:.3g} from unrounded fp32"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    flags = e2e.cpu_flags()
    precisions = [p for p, flag in (("bf16-amx", "amx_bf16"), ("bf16", "avx512_bf16"),
                                    ("fp16", "avx512f")) if flag in flags]
    if not precisions:
        print("this CPU has neither AVX-512 BF16 nor AVX-512: nothing to test")
        print("SKIP")
        return 77
    print(f"variants this CPU runs: {', '.join(precisions)}")
    root = tempfile.mkdtemp(prefix="kiln-reduced-")
    passed = failed = 0
    for spec in CASES:
        for precision in precisions:
            problems, detail = check(args, root, spec, precision)
            ok = not problems
            print(f"{'PASS' if ok else 'FAIL'} {spec['name']} {precision}: "
                  f"{'; '.join(problems) if problems else detail}", flush=True)
            passed += ok
            failed += not ok
    return e2e.finish(passed, failed, root, args.keep)


if __name__ == "__main__":
    sys.exit(main())
