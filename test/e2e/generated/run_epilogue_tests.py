#!/usr/bin/python3
"""Generated Conv/MatMul + activation models through kiln, checked against ONNX Runtime.

    /usr/bin/python3 test/e2e/generated/run_epilogue_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

kiln-fuse-epilogue turns a Conv followed by an activation into a FusedConv and a
MatMul followed by a bias Add and/or an activation into a FusedMatMul, recognizing
the decomposed HardSwish and exact-GELU subgraphs exporters emit; kiln-fold-batchnorm
folds per-channel Mul/Add after a Conv into its weights. Each case is a small graph
of that shape (one large enough for the blocked im2col form, one wide enough for the
GEMM to pack B), compiled for
the host CPU (--cpu native) and for x86-64-v3. ONNX Runtime (graph optimisations disabled) and a
float64 numpy implementation must agree before kiln's output is compared with them.
Prints one line per case and CPU and `N passed, N failed`; exits non-zero on any failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 1618

CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"])]

# name: (kind, input shape, output channels / columns, kernel, activation)
CASES = {
    "conv_relu": ("conv", (1, 8, 20, 20), 16, 3, "relu"),
    "conv_clip6": ("conv", (1, 8, 20, 20), 16, 3, "clip6"),
    "conv_leaky": ("conv", (1, 8, 20, 20), 16, 1, "leaky"),
    "conv_hardsigmoid": ("conv", (1, 8, 20, 20), 16, 1, "hardsigmoid"),
    "conv_hardswish_decomposed": ("conv", (1, 8, 20, 20), 16, 3, "hardswish"),
    "conv_hardswish_op": ("conv", (1, 8, 20, 20), 16, 3, "hardswish_op"),
    "conv_sigmoid": ("conv", (1, 8, 20, 20), 16, 1, "sigmoid"),
    "conv_tanh": ("conv", (1, 8, 20, 20), 16, 1, "tanh"),
    "conv_silu": ("conv", (1, 8, 20, 20), 16, 3, "silu"),
    "conv_affine_silu_large": ("conv", (1, 48, 80, 80), 24, 3, "affine_silu"),
    "conv_affine_hardswish_large": ("conv", (1, 48, 80, 80), 24, 3, "affine_hardswish"),
    # Bias and activation computed in the product's register tiles: K in
    # several cache blocks (3x3 over 72 channels, K = 648), rows and columns
    # past whole register tiles, a residual read per element.
    "conv_deep_relu": ("conv", (1, 72, 12, 12), 36, 3, "relu"),
    "conv1x1_wide_relu": ("conv", (1, 64, 30, 30), 160, 1, "relu"),
    "conv_residual_relu": ("conv", (1, 40, 18, 18), 48, 1, "residual_relu"),
    "conv_deep_residual_relu": ("conv", (1, 96, 14, 14), 56, 3, "residual_relu"),
    "matmul_deep_bias_gelu": ("matmul", (1, 40, 600), 96, None, "gelu"),
    # K in whole cache blocks (512 = 2 x 256): the last block's test.
    "conv1x1_k512_relu": ("conv", (1, 512, 9, 9), 40, 1, "relu"),
    "matmul_k512_bias_relu": ("matmul", (1, 24, 512), 64, None, "relu"),
    "matmul_bias_gelu_decomposed": ("matmul", (2, 16, 32), 48, None, "gelu"),
    "matmul_bias_relu": ("matmul", (2, 16, 32), 48, None, "relu"),
    "matmul_bias": ("matmul", (2, 16, 32), 48, None, "none"),
    "matmul_bias_silu": ("matmul", (2, 16, 32), 48, None, "silu"),
    # B rows 8400 bytes apart: the GEMM packs B panels; K, M and N all leave
    # partial cache blocks and register tiles.
    "matmul_wide_packed_b": ("matmul", (1, 70, 300), 2100, None, "relu"),
    # Pixels as the product's rows (7x7 and smaller maps, whole panels of
    # channels): the bias starts the tiles and the output's transpose runs
    # with the activation (or the residual add) in one pass.
    "conv3x3_pixel_rows_silu": ("conv", (1, 32, 7, 7), 64, 3, "silu"),
    "conv1x1_pixel_rows_residual_relu": ("conv", (1, 48, 6, 6), 32, 1, "residual_relu"),
    # Chain "dw": x -> ReLU -> 1x1 conv + activation -> depthwise 3x3, pad 1.
    # The activation writes the interior of the depthwise conv's padded
    # input from the register tiles, whose rows of lanes cross image rows
    # (widths below, at and past the tiles' columns); the product reads an
    # intermediate the memory plan could give to that buffer.
    "conv1x1_clip6_padded_w56": ("conv", (1, 16, 56, 56), 48, 1, "clip6", "dw"),
    "conv1x1_relu_padded_w7": ("conv", (1, 32, 7, 7), 64, 1, "relu", "dw"),
    "conv1x1_silu_padded_w33": ("conv", (1, 8, 33, 33), 24, 1, "silu", "dw"),
    "conv1x1_relu_padded_w20": ("conv", (1, 24, 20, 20), 40, 1, "relu", "dw"),
    # Chains "dw_clip", "dw2_clip": the depthwise conv (stride 1 or 2) with
    # its bias and a Clip computed in its vector kernel, then a 1x1 conv.
    "conv1x1_relu_dw_clip_w30": ("conv", (1, 8, 30, 30), 24, 1, "relu", "dw_clip"),
    "conv1x1_clip6_dw2_clip_w45": ("conv", (1, 8, 45, 45), 32, 1, "clip6", "dw2_clip"),
}


def erf(x):
    """erf in float64, elementwise."""
    import math
    return np.vectorize(math.erf)(x)


def activation(nodes, inits, x, kind):
    """Appends ONNX nodes applying `kind` to tensor `x`; returns (output name, numpy fn)."""
    from onnx import helper, numpy_helper

    def const(name, v):
        inits.append(numpy_helper.from_array(np.array(v, dtype=np.float32), name))
        return name

    if kind == "none":
        return x, lambda v: v
    if kind == "relu":
        nodes.append(helper.make_node("Relu", [x], ["act"]))
        return "act", lambda v: np.maximum(v, 0)
    if kind == "clip6":
        nodes.append(helper.make_node("Clip", [x, const("lo", 0.0), const("hi", 6.0)], ["act"]))
        return "act", lambda v: np.clip(v, 0, 6)
    if kind == "leaky":
        nodes.append(helper.make_node("LeakyRelu", [x], ["act"], alpha=0.1))
        return "act", lambda v: np.where(v < 0, 0.1 * v, v)
    if kind == "hardsigmoid":
        nodes.append(helper.make_node("HardSigmoid", [x], ["act"], alpha=0.25, beta=0.4))
        return "act", lambda v: np.clip(0.25 * v + 0.4, 0, 1)
    if kind in ("hardswish", "affine_hardswish"):
        nodes += [helper.make_node("Add", [x, const("three", 3.0)], ["a3"]),
                  helper.make_node("Clip", ["a3", const("zero", 0.0), const("six", 6.0)], ["c6"]),
                  helper.make_node("Mul", [x, "c6"], ["m"]),
                  helper.make_node("Div", ["m", "six"], ["act"])]
        return "act", lambda v: v * np.clip(v + 3, 0, 6) / 6
    if kind == "hardswish_op":
        nodes.append(helper.make_node("HardSwish", [x], ["act"]))
        return "act", lambda v: v * np.clip(v + 3, 0, 6) / 6
    if kind == "sigmoid":
        nodes.append(helper.make_node("Sigmoid", [x], ["act"]))
        return "act", lambda v: 1 / (1 + np.exp(-v))
    if kind in ("silu", "affine_silu"):
        nodes += [helper.make_node("Sigmoid", [x], ["sg"]),
                  helper.make_node("Mul", [x, "sg"], ["act"])]
        return "act", lambda v: v / (1 + np.exp(-v))
    if kind == "tanh":
        nodes.append(helper.make_node("Tanh", [x], ["act"]))
        return "act", np.tanh
    if kind == "gelu":
        nodes += [helper.make_node("Div", [x, const("sqrt2", np.sqrt(2.0))], ["d"]),
                  helper.make_node("Erf", ["d"], ["e"]),
                  helper.make_node("Add", ["e", const("one", 1.0)], ["p"]),
                  helper.make_node("Mul", [x, "p"], ["q"]),
                  helper.make_node("Mul", ["q", const("half", 0.5)], ["act"])]
        return "act", lambda v: v * (erf(v / np.sqrt(2.0)) + 1) * 0.5
    raise ValueError(kind)


def depthwise(nodes, inits, x, ref, rng, stride=1):
    """Appends a depthwise 3x3 conv (pad 1, bias) of `x`; returns its float64 reference."""
    from onnx import helper, numpy_helper
    _, c, h, wd = ref.shape
    w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    inits += [numpy_helper.from_array(w, "wdw"), numpy_helper.from_array(b, "bdw")]
    nodes.append(helper.make_node("Conv", [x, "wdw", "bdw"], ["dw"], kernel_shape=[3, 3],
                                  pads=[1] * 4, group=c, strides=[stride] * 2))
    xp = np.pad(ref, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (h - 1) // stride + 1, (wd - 1) // stride + 1
    y = np.zeros((1, c, oh, ow)) + b.astype(np.float64).reshape(1, c, 1, 1)
    for i in range(3):
        for j in range(3):
            y += (xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
                  * w[:, 0, i, j].astype(np.float64).reshape(1, c, 1, 1))
    return y


def make_case(name, spec, rng, work):
    """Writes the model and its input; returns (model path, input paths, numpy reference)."""
    from onnx import TensorProto, helper, numpy_helper
    kind, xshape, n, k, act = spec[:5]
    chain = spec[5] if len(spec) > 5 else None
    x = rng.standard_normal(xshape).astype(np.float32)
    nodes, inits = [], []
    x64 = x.astype(np.float64)
    conv_in = "x"
    if chain == "dw":
        nodes.append(helper.make_node("Relu", ["x"], ["xr"]))
        x64, conv_in = np.maximum(x64, 0), "xr"
    if kind == "conv":
        c = xshape[1]
        w = (rng.standard_normal((n, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        inits += [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        p = k // 2
        nodes.append(helper.make_node("Conv", [conv_in, "w", "b"], ["y"], kernel_shape=[k, k],
                                      pads=[p] * 4))
        xp = np.pad(x64, ((0, 0), (0, 0), (p, p), (p, p)))
        h, wd = xshape[2], xshape[3]
        y = np.zeros((1, n, h, wd))
        for i in range(k):
            for j in range(k):
                y += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd],
                               w[:, :, i, j].astype(np.float64))
        y += b.astype(np.float64).reshape(1, n, 1, 1)
        src = "y"
        if act.startswith("affine"):
            s = rng.uniform(0.5, 1.5, (n, 1, 1)).astype(np.float32)
            t = np.array([0.25], dtype=np.float32)
            inits += [numpy_helper.from_array(s, "s"), numpy_helper.from_array(t, "t")]
            nodes += [helper.make_node("Mul", ["y", "s"], ["ys"]),
                      helper.make_node("Add", ["ys", "t"], ["yt"])]
            y = y * s.astype(np.float64) + t.astype(np.float64)
            src = "yt"
        yshape = [1, n, h, wd]
        if act == "residual_relu":
            r = rng.standard_normal(yshape).astype(np.float32)
            inits.append(numpy_helper.from_array(r, "r"))
            nodes.append(helper.make_node("Add", [src, "r"], ["yr"]))
            y = y + r.astype(np.float64)
            src, act = "yr", "relu"
    else:
        w = (rng.standard_normal((xshape[-1], n)) / np.sqrt(xshape[-1])).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        inits += [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        nodes += [helper.make_node("MatMul", ["x", "w"], ["mm"]),
                  helper.make_node("Add", ["mm", "b"], ["y"])]
        y = x64 @ w.astype(np.float64) + b.astype(np.float64)
        src = "y"
        yshape = list(xshape[:-1]) + [n]
    out, fn = activation(nodes, inits, src, act)
    ref = fn(y)
    if chain and chain.startswith("dw"):
        ref, out = depthwise(nodes, inits, out, ref, rng, 2 if chain.startswith("dw2") else 1), "dw"
        yshape = list(ref.shape)
    if chain in ("dw_clip", "dw2_clip"):
        nodes.append(helper.make_node("Clip", ["dw", "lo_dw", "hi_dw"], ["dwc"]))
        inits += [numpy_helper.from_array(np.array(0.0, dtype=np.float32), "lo_dw"),
                  numpy_helper.from_array(np.array(6.0, dtype=np.float32), "hi_dw")]
        wp = (rng.standard_normal((8, yshape[1], 1, 1)) / np.sqrt(yshape[1])).astype(np.float32)
        inits.append(numpy_helper.from_array(wp, "wpw"))
        nodes.append(helper.make_node("Conv", ["dwc", "wpw"], ["pw"], kernel_shape=[1, 1]))
        ref = np.einsum("nchw,fc->nfhw", np.clip(ref, 0, 6), wp[:, :, 0, 0].astype(np.float64))
        out, yshape = "pw", [1, 8] + yshape[2:]
    nodes[-1].output[0] = "out" if out != src else nodes[-1].output[0]
    if out == src:
        nodes.append(helper.make_node("Identity", [src], ["out"]))
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xshape))],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, yshape)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    path, inputs = gen.save_case(model, [x], work)
    return path, inputs, ref


def check_case(args, name, spec, work):
    """Returns [(label, ok, message)], one per CPU."""
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    model, inputs, ref = make_case(name, spec, rng, work)
    return gen.check_against_references(args, model, inputs, ref, work, CPUS)


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_epilogue_", CASES, check_case))
