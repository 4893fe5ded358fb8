#!/usr/bin/python3
"""Convolutions, pooling and matrix products over run-time sizes against ONNX Runtime.

    run_dynamic_image_tests.py --kiln build/bin/kiln --ort-dir build/ort
        --runtime-lib build/lib/libkiln_rt.so [--keep]

Each model has symbolic batch, height and width (or rows) and is compiled once; one
library then runs every size on one context through the Python loader: images smaller
than a tile (the dynamic op), exactly one tile, sizes that leave a shifted last tile,
batches above one, sequences shorter and longer than a row block. Outputs must match
ONNX Runtime (optimisations off) on the same file and input within 1e-5 of the output's
range, and the arena the run's dims need must grow with the input.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 7
TOL = 1e-5


def make_model(rng, spec):
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper as nh
    inits, nodes = [], []

    def weight(name, shape):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        a = (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
        inits.append(nh.from_array(a, name))
        return name

    def bias(name, n):
        inits.append(nh.from_array((rng.standard_normal(n) * 0.1).astype(np.float32), name))
        return name

    c = spec["c"]
    y = "x"
    for k, layer in enumerate(spec["layers"]):
        op, attrs = layer[0], dict(layer[1])
        out = f"t{k}"
        if op == "Conv":
            f = attrs.pop("f")
            kh, kw = attrs.get("kernel_shape", [1, 1])
            group = attrs.get("group", 1)
            ins = [y, weight(f"w{k}", (f, c // group, kh, kw))]
            if attrs.pop("bias", True):
                ins.append(bias(f"b{k}", f))
            nodes.append(helper.make_node("Conv", ins, [out], **attrs))
            c = f
        elif op == "ConvTranspose":
            f = attrs.pop("f")
            kh, kw = attrs["kernel_shape"]
            ins = [y, weight(f"w{k}", (c, f, kh, kw))]
            if attrs.pop("bias", True):
                ins.append(bias(f"b{k}", f))
            nodes.append(helper.make_node("ConvTranspose", ins, [out], **attrs))
            c = f
        elif op == "MatMul":
            n = attrs["n"]
            nodes.append(helper.make_node("MatMul", [y, weight(f"w{k}", (c, n))], [out]))
            c = n
        else:
            nodes.append(helper.make_node(op, [y], [out], **attrs))
        y = out
    nodes.append(helper.make_node("Identity", [y], ["y"]))
    dims = spec["dims"]
    graph = helper.make_graph(
        nodes, spec["name"], [helper.make_tensor_value_info("x", T.FLOAT, dims)],
        [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    return model


CASES = [
    dict(name="conv3x3_pad_relu", c=8, layers=[
        ("Conv", dict(f=16, kernel_shape=[3, 3], pads=[1, 1, 1, 1])), ("Relu", {})],
        shapes=[(1, 5, 7), (2, 17, 33), (1, 24, 130), (1, 1, 1)]),
    dict(name="conv3x3_s2_nobias", c=6, layers=[
        ("Conv", dict(f=12, kernel_shape=[3, 3], strides=[2, 2], bias=False))],
        shapes=[(1, 3, 3), (1, 9, 61), (3, 40, 41)]),
    dict(name="conv1x1_sigmoid", c=24, layers=[
        ("Conv", dict(f=40, kernel_shape=[1, 1])), ("Sigmoid", {})],
        shapes=[(1, 4, 5), (1, 8, 32), (2, 12, 97)]),
    dict(name="conv3x5_dilated", c=4, layers=[
        ("Conv", dict(f=8, kernel_shape=[3, 5], dilations=[2, 3], pads=[2, 0, 1, 3]))],
        shapes=[(1, 6, 11), (1, 30, 70)]),
    dict(name="depthwise_s2", c=16, layers=[
        ("Conv", dict(f=16, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                      group=16))],
        shapes=[(1, 2, 2), (1, 31, 45), (2, 64, 64)]),
    dict(name="grouped", c=8, layers=[
        ("Conv", dict(f=8, kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=2))],
        shapes=[(1, 5, 5), (1, 20, 33)]),
    dict(name="pools", c=8, layers=[
        ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("AveragePool", dict(kernel_shape=[2, 2], strides=[2, 2]))],
        shapes=[(1, 4, 4), (1, 35, 90), (2, 64, 40)]),
    dict(name="small_net", c=3, layers=[
        ("Conv", dict(f=16, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ("Relu", {}),
        ("Conv", dict(f=16, kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=16)),
        ("Conv", dict(f=32, kernel_shape=[1, 1])), ("Relu", {}),
        ("GlobalAveragePool", {})],
        shapes=[(1, 6, 6), (1, 48, 160), (2, 50, 77)]),
    # Upsampling (taps do not overlap: a 1x1 convolution and an interleave),
    # and overlapping taps with pads (a gather per output element).
    dict(name="conv_transpose_2x2", c=12, layers=[
        ("ConvTranspose", dict(f=8, kernel_shape=[2, 2], strides=[2, 2])), ("Relu", {})],
        shapes=[(1, 1, 1), (1, 5, 7), (2, 20, 41)]),
    dict(name="conv_transpose_3x3_s2", c=6, layers=[
        ("ConvTranspose", dict(f=4, kernel_shape=[3, 3], strides=[2, 2],
                               pads=[1, 1, 1, 1], bias=False))],
        shapes=[(1, 3, 4), (1, 17, 9)]),
    dict(name="matmul_rows", c=48, rank=2, layers=[("MatMul", dict(n=40)), ("Relu", {})],
         shapes=[(1,), (7,), (8,), (9,), (70,), (150,)]),
]


def input_shape(spec, s):
    if spec.get("rank") == 2:
        return (s[0], spec["c"])
    return (s[0], spec["c"], s[1], s[2])


def check_case(args, runtime, spec, work, flags):
    rng = np.random.default_rng(SEED)
    if spec.get("rank") == 2:
        spec["dims"] = ["rows", spec["c"]]
    else:
        spec["dims"] = ["n", spec["c"], "h", "w"]
    model = make_model(rng, spec)
    import onnx
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    so = os.path.join(work, "model.so")
    r = e2e.run_command([args.kiln, "compile", path, "-o", so] + flags, timeout=600)
    name = " ".join([spec["name"]] + flags)
    if r.returncode != 0:
        return [(name, False, f"compile: {r.first_error_line()}")]
    results, needs = [], []
    with runtime.load(so) as m:
        for k, s in enumerate(spec["shapes"]):
            shape = input_shape(spec, s)
            label = f"{name} {list(shape)}"
            x = rng.standard_normal(shape).astype(np.float32)
            xin = os.path.join(work, f"x{k}.npy")
            np.save(xin, x)
            rr, outs = e2e.ort_run(path, [xin], os.path.join(work, f"ort{k}"),
                                   ort_dir=args.ort_dir, extra=["--opt-level", "disabled"])
            if rr.returncode != 0:
                results.append((label, False, f"ONNX Runtime: {rr.first_error_line()}"))
                continue
            want = np.load(outs[0])
            try:
                got, = m.run(x)
            except runtime.KilnError as e:
                results.append((label, False, f"run: {e}"))
                continue
            needs.append((x.size, m.arena_bytes_for(x)))
            if got.shape != want.shape:
                results.append((label, False, f"shape {got.shape} != {want.shape}"))
                continue
            err = float(np.max(np.abs(got.astype(np.float64) - want)) /
                        max(float(np.max(np.abs(want))), 1e-30)) if want.size else 0.0
            results.append((label, err <= TOL, f"max err {err:.3g} of the output range"))
    needs.sort()
    if len(needs) > 1 and needs[0][1] > needs[-1][1]:
        results.append((name + " arena", False,
                        f"the smallest input needs {needs[0][1]} bytes, the largest "
                        f"{needs[-1][1]}"))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--runtime-lib", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if args.ort_dir:
        args.ort_dir = os.path.abspath(args.ort_dir)
    os.environ["KILN_RT_LIBRARY"] = os.path.abspath(args.runtime_lib)
    sys.path.insert(0, os.path.join(e2e.REPO_ROOT, "runtime", "python"))
    import kiln_rt as runtime  # noqa: E402
    root = tempfile.mkdtemp(prefix="kiln-dynamic-image-")
    passed = failed = 0
    # The portable default (256-bit vectors) and this machine's CPU.
    for flags in ([], ["--cpu", "native"]):
        for spec in CASES:
            work = os.path.join(root, spec["name"] + "".join(flags))
            os.makedirs(work)
            for label, ok, msg in check_case(args, runtime, spec, work, flags):
                print(f"{'PASS' if ok else 'FAIL'} {label}: {msg}", flush=True)
                passed += ok
                failed += not ok
    return e2e.finish(passed, failed, root, args.keep)


if __name__ == "__main__":
    sys.exit(main())
