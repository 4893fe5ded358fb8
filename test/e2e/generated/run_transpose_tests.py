#!/usr/bin/python3
"""Generated transposes and elementwise ops over transposed inputs, checked against ORT.

    /usr/bin/python3 test/e2e/generated/run_transpose_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

An elementwise op that writes along one loop and reads an input along another is
vectorized in blocks of lanes x lanes, transposed in registers
(lowering/cpu/TransposeTiles.cpp). The 7x7 layers of ResNet-style networks make
such ops (their pixel-row products' [pixels, channels] results go back to NCHW
with the bias, the residual and the activation), as do transposes of attention
heads. Each case is a Transpose (random permutations of ranks 2 to 5, extents that
leave remainders in both directions of a block, int32 as well as float), a
transpose summed with a tensor read in order and activated, two transposes of the
same permutation summed, or a 1x1 or 3x3 convolution on a small map with a
residual Add and Relu. Compiled for the host CPU and for x86-64-v3 and x86-64
(16-, 8- and 4-lane blocks); ONNX Runtime (graph optimisations disabled) and a
float64 numpy reference must agree before kiln's output is compared with them.
Prints one line per case and CPU and `N passed, N failed`; exits non-zero on any
failure.
"""

import sys

import numpy as np

import generated_cases as gen
from run_conv_tests import reference

SEED = 1618

CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"]),
        ("x86-64", ["--cpu", "x86-64"])]

# name: (kind, shape, perm or output channels)
CASES = {
    "t2_49x512": ("transpose", (49, 512), (1, 0)),
    "t2_33x17": ("transpose", (33, 17), (1, 0)),
    "t3_7x7x40": ("transpose", (7, 7, 40), (2, 0, 1)),
    "t4_heads": ("transpose", (1, 50, 12, 64), (0, 2, 1, 3)),
    "t4_keys": ("transpose", (1, 12, 50, 64), (0, 1, 3, 2)),
    "t4_nhwc_to_nchw": ("transpose", (2, 9, 11, 24), (0, 3, 1, 2)),
    "t5_mixed": ("transpose", (3, 5, 6, 7, 19), (4, 2, 0, 3, 1)),
    "t3_int32": ("transpose_int", (13, 21, 6), (1, 2, 0)),
    # Blocks with a side of two (a Winograd F(2x2) scatter writes pairs).
    "t3_read_pairs": ("transpose", (3, 40, 2), (0, 2, 1)),
    "t3_write_pairs": ("transpose", (3, 2, 41), (0, 2, 1)),
    # Large enough for threads (a quarter of the row ops' threshold): the
    # forall splits the transposed side in whole blocks (97: not at all), and
    # a Winograd-scatter-like [f, ty, a, tx, b] order.
    "t2_200x97_threads": ("transpose", (200, 97), (1, 0)),
    "t5_scatter_threads": ("transpose", (2, 2, 96, 7, 7), (2, 3, 0, 4, 1)),
    # relu(transpose(x) + z): one input across the block, one along it.
    "add_relu_49x96": ("add_relu", (49, 96), (1, 0)),
    "add_relu_heads": ("add_relu", (2, 20, 4, 18), (0, 2, 3, 1)),
    # transpose(a) + transpose(b), the same permutation.
    "two_transposed": ("two", (21, 3, 37), (2, 1, 0)),
    # Convolutions on small maps (the pixel-row product) with a residual.
    "conv1x1_7x7_residual": ("conv", (1, 64, 7, 7), (128, 1)),
    "conv3x3_5x5_residual": ("conv", (1, 32, 5, 5), (64, 3)),
    "conv1x1_6x9_residual": ("conv", (1, 48, 6, 9), (96, 1)),
}


def make_case(name, spec, rng, work):
    """Writes the model and its inputs; returns (model path, input paths, reference)."""
    from onnx import TensorProto, helper, numpy_helper
    kind, shape, extra = spec
    nodes, inits, arrays, ins = [], [], [], []
    ftype = TensorProto.FLOAT

    def add_input(n, a, t=ftype):
        arrays.append(a)
        ins.append(helper.make_tensor_value_info(n, t, list(a.shape)))

    if kind in ("transpose", "transpose_int"):
        if kind == "transpose_int":
            x = rng.integers(-1000, 1000, shape).astype(np.int32)
            add_input("x", x, TensorProto.INT32)
            otype = TensorProto.INT32
        else:
            x = rng.standard_normal(shape).astype(np.float32)
            add_input("x", x)
            otype = ftype
        nodes.append(helper.make_node("Transpose", ["x"], ["out"], perm=list(extra)))
        ref = np.transpose(x, extra)
        if kind == "transpose":
            ref = ref.astype(np.float64)
    elif kind == "add_relu":
        x = rng.standard_normal(shape).astype(np.float32)
        t = np.transpose(x.astype(np.float64), extra)
        z = rng.standard_normal(t.shape).astype(np.float32)
        add_input("x", x)
        add_input("z", z)
        otype = ftype
        nodes += [helper.make_node("Transpose", ["x"], ["t"], perm=list(extra)),
                  helper.make_node("Add", ["t", "z"], ["s"]),
                  helper.make_node("Relu", ["s"], ["out"])]
        ref = np.maximum(t + z, 0)
    elif kind == "two":
        a = rng.standard_normal(shape).astype(np.float32)
        b = rng.standard_normal(shape).astype(np.float32)
        add_input("a", a)
        add_input("b", b)
        otype = ftype
        nodes += [helper.make_node("Transpose", ["a"], ["ta"], perm=list(extra)),
                  helper.make_node("Transpose", ["b"], ["tb"], perm=list(extra)),
                  helper.make_node("Mul", ["ta", "tb"], ["out"])]
        ref = np.transpose(a.astype(np.float64) * b, extra)
    else:
        f, k = extra
        c = shape[1]
        x = rng.standard_normal(shape).astype(np.float32)
        w = (rng.standard_normal((f, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        bias = rng.standard_normal(f).astype(np.float32)
        y = reference(x, w, bias, [1, 1], [1, 1], [k // 2] * 4, 1)
        z = rng.standard_normal(y.shape).astype(np.float32)
        add_input("x", x)
        add_input("z", z)
        inits += [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")]
        otype = ftype
        nodes += [helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k],
                                   pads=[k // 2] * 4),
                  helper.make_node("Add", ["y", "z"], ["s"]),
                  helper.make_node("Relu", ["s"], ["out"])]
        ref = np.maximum(y + z, 0)
    return gen.save_graph_case(nodes, name, ins, arrays, ref, work, inits, otype)


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_transpose_", CASES, gen.seeded_checks(SEED, make_case, CPUS)))
