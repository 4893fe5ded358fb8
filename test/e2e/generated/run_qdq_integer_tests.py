#!/usr/bin/python3
"""QDQ convolutions and matmuls computed in integers, against ONNX Runtime.

    /usr/bin/python3 test/e2e/generated/run_qdq_integer_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--keep]

Each case is a one-contraction QDQ model with seeded random int8 weights:
x -> QuantizeLinear -> DequantizeLinear -> Conv/MatMul/Gemm(DequantizeLinear(w), bias)
-> [activation] -> [QuantizeLinear -> DequantizeLinear]. kiln compiles it for this
machine's CPU (`--cpu native`); where the CPU has AVX-512 VNNI the contraction must run
as an integer product (the assembly must hold vpdpbusd; a case the fusion must leave in
float, a grouped convolution, must not); where it also has AMX, every case is compiled a
second time with AMX tiles, whose assembly must hold tdpbusd instead; and where qemu-user
and the arm64 sysroot are installed, twice more for AArch64, run under qemu-aarch64: with
i8mm (usdot register tiles) and for the default CPU (sdot on rows moved to s8, the sums
started from 128 times the weight's column sums). The reference is ONNX Runtime with graph
optimisations off (it computes the QDQ nodes as written, in float):
- quantized outputs may differ by one quantization step (the float sum and the exact
  integer sum round differently near ties) in at most 2 % of the elements, never more;
- float outputs within 1e-5 of the output's largest magnitude.
Shapes cover 1x1/3x3/5x5/7x7 kernels, strides, dilation, asymmetric pads, channel
counts that are not multiples of 4 or 16, batch 2, u8 and i8 activations, per-tensor and
per-channel weight scales, Relu/Clip/no activation, row counts that leave partial
register tiles, a product large enough for threads, and an inverted-residual block
(1x1 expansion, float depthwise 3x3, 1x1 projection, residual Add) whose layouts must
cancel between layers.
Prints one line per case and `N passed, N failed`.
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 1234


# Where the CPU has AMX, each case is compiled twice: AMX tiles (tdpbusd) and, with the
# tiles turned off, the AVX-512 VNNI register tiles (vpdpbusd). Where qemu-aarch64 and the
# arm64 sysroot are installed, twice more for AArch64, run under qemu: with i8mm (usdot)
# and for the default neoverse-n1 (sdot on rows moved to s8).
VARIANTS = {"amx": ("tdpbusd", ["--cpu", "native"]),
            "vnni": ("vpdpbusd", ["--cpu", "native",
                                  "--features=-amx-tile,-amx-int8,-amx-bf16"]),
            "aarch64-i8mm": ("usdot", ["--target", "aarch64", "--features=+i8mm"]),
            "aarch64": ("sdot", ["--target", "aarch64"])}
SYSROOT = "/usr/aarch64-linux-gnu"


def aarch64_runner(kiln):
    """[qemu, -L, sysroot, kiln_run_npy] for AArch64 libraries, or None."""
    qemu = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static")
    runner = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(kiln))),
                          "aarch64", "kiln_run_npy")
    if not qemu or not os.path.isdir(SYSROOT) or not os.path.isfile(runner):
        return None
    return [qemu, "-L", SYSROOT, runner]


def output_shape(spec, nout):
    x = spec["x"]
    if spec["op"] != "conv":
        return list(x[:-1]) + [nout]
    _, _, kh, kw = spec["w"]
    st, dl = spec.get("strides", [1, 1]), spec.get("dilations", [1, 1])
    p = spec.get("pads", [0, 0, 0, 0])
    dims = [(x[2 + d] + p[d] + p[d + 2] - (k - 1) * dl[d] - 1) // st[d] + 1
            for d, k in enumerate((kh, kw))]
    return [x[0], nout] + dims


def make_case(rng, spec):
    """A QDQ model for `spec`; returns (model, input shape, output step or None)."""
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh
    kind = spec["op"]
    signed = spec.get("signed", False)
    qtype = np.int8 if signed else np.uint8
    xs, xz = 0.03, (-7 if signed else 120)
    inits = [nh.from_array(np.array(xs, np.float32), "xs"),
             nh.from_array(np.array(xz, qtype), "xz")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"])]
    if kind == "conv":
        f, c, kh, kw = spec["w"]
        wshape, axis, nout = (f, c // spec.get("group", 1), kh, kw), 0, f
    else:
        k, n = spec["w"]
        wshape = (n, k) if spec.get("transB") else (k, n)
        axis, nout = (0 if spec.get("transB") else 1), n
    w = rng.integers(-127, 128, wshape).astype(np.int8)
    fan_in = int(np.prod(wshape)) // nout
    if spec.get("per_channel", True):
        ws = (rng.random(nout) + 0.5).astype(np.float32) * (2.0 / np.sqrt(fan_in) / 127)
    else:
        ws = np.array(1.5 / np.sqrt(fan_in) / 127, np.float32)
    inits += [nh.from_array(w, "w"), nh.from_array(ws, "ws")]
    nodes.append(helper.make_node("DequantizeLinear", ["w", "ws"], ["wd"], axis=axis))
    ins = ["xd", "wd"]
    if spec.get("bias", True):
        inits.append(nh.from_array((rng.standard_normal(nout) * 0.2).astype(np.float32), "b"))
        ins.append("b")
    if kind == "conv":
        attrs = {k: spec[k] for k in ("strides", "pads", "dilations", "group") if k in spec}
        nodes.append(helper.make_node("Conv", ins, ["c"], **attrs))
    elif kind == "gemm":
        nodes.append(helper.make_node("Gemm", ins, ["c"], transB=int(spec.get("transB", 0))))
    else:
        nodes.append(helper.make_node("MatMul", ins[:2], ["c"]))
        if len(ins) == 3:
            nodes[-1].output[0] = "mm"
            nodes.append(helper.make_node("Add", ["mm", "b"], ["c"]))
    y = "c"
    act = spec.get("act")
    if act == "relu":
        nodes.append(helper.make_node("Relu", [y], ["a"]))
        y = "a"
    elif act == "clip":
        inits += [nh.from_array(np.array(0, np.float32), "lo"),
                  nh.from_array(np.array(6, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", [y, "lo", "hi"], ["a"]))
        y = "a"
    step = None
    if "out" in spec:
        otype = np.int8 if spec["out"] == "i8" else np.uint8
        step = spec.get("ys", 0.05)
        inits += [nh.from_array(np.array(step, np.float32), "ys"),
                  nh.from_array(np.array(spec.get("yz", 0), otype), "yz")]
        nodes += [helper.make_node("QuantizeLinear", [y, "ys", "yz"], ["yq"]),
                  helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    else:
        nodes.append(helper.make_node("Identity", [y], ["y"]))
    graph = helper.make_graph(
        nodes, spec["name"], [helper.make_tensor_value_info("x", T.FLOAT, spec["x"])],
        [helper.make_tensor_value_info("y", T.FLOAT, output_shape(spec, nout))], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model, spec["x"], step


def make_block(rng, spec):
    """An inverted-residual block as `kiln quantize` writes it: a 1x1 expansion
    (Relu), a depthwise 3x3 (Clip) whose weight only the float path takes, a
    1x1 projection and a residual Add, each conv input behind Q/DQ."""
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh
    n, c, h, w = spec["x"]
    e = c * 4
    inits, nodes = [], []
    qtype = np.int8 if spec.get("signed") else np.uint8
    stride = spec.get("dw_stride", 1)

    def qdq(src, name, scale, zero):
        zero = zero - 128 if qtype == np.int8 else zero
        inits.extend([nh.from_array(np.array(scale, np.float32), name + "_s"),
                      nh.from_array(np.array(zero, qtype), name + "_z")])
        nodes.extend([helper.make_node("QuantizeLinear", [src, name + "_s", name + "_z"],
                                       [name + "_q"]),
                      helper.make_node("DequantizeLinear", [name + "_q", name + "_s",
                                                            name + "_z"], [name + "_d"])])
        return name + "_d"

    def weight(name, shape, fan_in):
        q = rng.integers(-127, 128, shape).astype(np.int8)
        s = (rng.random(shape[0]) + 0.5).astype(np.float32) * (2.0 / np.sqrt(fan_in) / 127)
        inits.extend([nh.from_array(q, name), nh.from_array(s, name + "_s")])
        nodes.append(helper.make_node("DequantizeLinear", [name, name + "_s"], [name + "_d"],
                                      axis=0))
        return name + "_d"

    x = qdq("x", "in", 0.03, 128)
    nodes.append(helper.make_node("Conv", [x, weight("w1", (e, c, 1, 1), c)], ["c1"]))
    nodes.append(helper.make_node("Relu", ["c1"], ["r1"]))
    r1 = qdq("r1", "a1", 0.02, 0)
    dw_inputs = [r1, weight("w2", (e, 1, 3, 3), 9)]
    if spec.get("dw_bias"):
        inits.append(nh.from_array((rng.standard_normal(e) * 0.3).astype(np.float32), "b2"))
        dw_inputs.append("b2")
    nodes.append(helper.make_node("Conv", dw_inputs, ["c2"], group=e, pads=[1, 1, 1, 1],
                                  strides=[stride, stride]))
    inits += [nh.from_array(np.array(0, np.float32), "lo"),
              nh.from_array(np.array(6, np.float32), "hi")]
    nodes.append(helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"]))
    r2 = qdq("r2", "a2", 0.025, 0)
    nodes.append(helper.make_node("Conv", [r2, weight("w3", (c, e, 1, 1), e)], ["c3"]))
    out_shape = list(spec["x"])
    if stride == 1:
        nodes.append(helper.make_node("Add", ["c3", x], ["y"]))
    else:
        nodes.append(helper.make_node("Identity", ["c3"], ["y"]))
        out_shape[2:] = [(h - 1) // stride + 1, (w - 1) // stride + 1]
    graph = helper.make_graph(
        nodes, spec["name"], [helper.make_tensor_value_info("x", T.FLOAT, spec["x"])],
        [helper.make_tensor_value_info("y", T.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model, spec["x"], None


CASES = [
    dict(name="conv3x3_relu_u8out", op="conv", x=[1, 16, 14, 14], w=(32, 16, 3, 3),
         pads=[1, 1, 1, 1], act="relu", out="u8"),
    dict(name="conv3x3_s2_c3_float", op="conv", x=[1, 3, 23, 17], w=(24, 3, 3, 3),
         strides=[2, 2], per_channel=False),
    dict(name="conv1x1_n40_zp", op="conv", x=[1, 64, 9, 11], w=(40, 64, 1, 1), out="u8",
         yz=30, ys=0.08),
    dict(name="conv1x1_s2", op="conv", x=[2, 32, 10, 10], w=(80, 32, 1, 1),
         strides=[2, 2], act="relu", out="u8"),
    dict(name="conv3x3_dil2_i8", op="conv", x=[1, 20, 15, 13], w=(36, 20, 3, 3),
         dilations=[2, 2], pads=[2, 2, 2, 2], signed=True, out="i8", yz=-5),
    dict(name="conv7x7_s2_stem", op="conv", x=[2, 3, 40, 40], w=(64, 3, 7, 7),
         strides=[2, 2], pads=[3, 3, 3, 3], act="relu", out="u8", ys=0.1),
    dict(name="conv5x5_asym_clip", op="conv", x=[1, 12, 19, 21], w=(17, 12, 5, 5),
         pads=[1, 2, 2, 1], act="clip", out="u8", ys=0.03),
    dict(name="conv3x3_threads", op="conv", x=[1, 64, 56, 56], w=(64, 64, 3, 3),
         pads=[1, 1, 1, 1], act="relu", out="u8", ys=0.1),
    dict(name="conv3x3_nobias", op="conv", x=[1, 8, 6, 6], w=(16, 8, 3, 3), bias=False),
    dict(name="matmul_3d_float", op="matmul", x=[3, 7, 96], w=(96, 50)),
    dict(name="matmul_bias_relu_u8", op="matmul", x=[33, 64], w=(64, 128), act="relu",
         out="u8", ys=0.04),
    dict(name="matmul_vector", op="matmul", x=[64], w=(64, 17), bias=False),
    dict(name="gemm_transB_u8", op="gemm", x=[5, 200], w=(200, 130), transB=True,
         out="u8", yz=100, ys=0.06),
    dict(name="gemm_i8_per_tensor", op="gemm", x=[4, 48], w=(48, 10), signed=True,
         per_channel=False),
    # Several layers: layouts must cancel between them, the depthwise weight fold.
    dict(name="inverted_residual_block", op="block", x=[1, 16, 28, 28]),
    dict(name="inverted_residual_i8_s2_bias", op="block", x=[1, 12, 17, 15], signed=True,
         dw_stride=2, dw_bias=True),
    # The fusion must leave this one in float: grouped.
    dict(name="conv_grouped_float_path", op="conv", x=[1, 8, 8, 8], w=(8, 8, 3, 3),
         group=2, pads=[1, 1, 1, 1], out="u8", integer=False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if args.ort_dir:
        args.ort_dir = os.path.abspath(args.ort_dir)
    import onnx
    flags = e2e.cpu_flags()
    vnni = "avx512_vnni" in flags
    qemu = aarch64_runner(args.kiln)
    variants = ((["amx"] if "amx_int8" in flags else []) + ["vnni"] +
                (["aarch64-i8mm", "aarch64"] if qemu else []))
    print(f"this CPU {'has' if vnni else 'lacks'} AVX-512 VNNI: "
          f"{'integer' if vnni else 'float'} products expected; variants "
          f"{', '.join(variants)}")
    root = tempfile.mkdtemp(prefix="kiln-qdq-int-")
    passed = failed = 0
    ort_outputs = {}
    for spec, variant in [(c, v) for c in CASES for v in variants]:
        rng = np.random.default_rng(SEED + len(spec["name"]))
        build = make_block if spec["op"] == "block" else make_case
        model, shape, step = build(rng, spec)
        work = os.path.join(root, f"{spec['name']}_{variant}")
        marker, variant_flags = VARIANTS[variant]
        os.makedirs(work)
        path = os.path.join(work, "model.onnx")
        onnx.save(model, path)
        so, asm = os.path.join(work, "model.so"), os.path.join(work, "model.s")
        problems = []
        r = e2e.run_command([args.kiln, "compile", path, "-o", so,
                             "--emit-asm", asm] + variant_flags, timeout=300)
        if r.returncode != 0:
            problems.append(f"compile: {r.first_error_line()}")
        else:
            with open(asm) as f:
                integer = marker in f.read()
            want = (vnni or variant.startswith("aarch64")) and spec.get("integer", True)
            if integer != want:
                problems.append(f"integer product {'taken' if integer else 'not taken'}")
        worst, differing = 0.0, 0
        for k in range(2 if not problems else 0):
            x = (rng.standard_normal(shape) * 1.5).astype(np.float32)
            xin = os.path.join(work, f"x{k}.npy")
            np.save(xin, x)
            # The variants of a case share its model and inputs (same seed): one
            # ONNX Runtime run serves them all.
            paths = ort_outputs.get((spec["name"], k))
            if paths is None:
                rr, paths = e2e.ort_run(path, [xin], os.path.join(work, f"ort{k}"),
                                        ort_dir=args.ort_dir,
                                        extra=["--opt-level", "disabled"])
                if rr.returncode != 0:
                    problems.append(f"ONNX Runtime: {rr.first_error_line()}")
                    break
                ort_outputs[(spec["name"], k)] = paths
            out = os.path.join(work, f"kiln{k}.npy")
            if variant.startswith("aarch64"):
                rk = e2e.run_command(qemu + [so, xin, "-o", out], timeout=300)
            else:
                rk = e2e.run_command([args.kiln, "run", so, "--input", xin, "--output", out])
            if rk.returncode != 0:
                problems.append(f"kiln run: {rk.first_error_line()}")
                break
            ort, got = np.load(paths[0]).astype(np.float64), np.load(out).astype(np.float64)
            if got.shape != ort.shape:
                problems.append(f"shape {got.shape} != {ort.shape}")
                break
            diff = np.abs(got - ort)
            if step is None:
                bound = 1e-5 * max(np.abs(ort).max(), 1e-3)
                worst = max(worst, diff.max())
                if diff.max() > bound:
                    problems.append(f"max abs err {diff.max():.3g} > {bound:.3g}")
            else:
                worst = max(worst, diff.max() / step)
                differing = max(differing, int((diff > step * 1e-3).sum()))
                if diff.max() > step * 1.001:
                    problems.append(f"differs by {diff.max() / step:.2f} steps")
                elif differing > 0.02 * diff.size:
                    problems.append(f"{differing} of {diff.size} elements differ by a step")
        ok = not problems
        detail = "; ".join(problems) if problems else (
            f"max err {worst:.3g}" + (" steps" if step else "") +
            (f", {differing} elements one step off" if step else ""))
        print(f"{'PASS' if ok else 'FAIL'} {spec['name']} {variant}: {detail}", flush=True)
        passed += ok
        failed += not ok
    return e2e.finish(passed, failed, root, args.keep)


if __name__ == "__main__":
    sys.exit(main())
