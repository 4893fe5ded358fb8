#!/usr/bin/python3
"""Conv then MaxPool with channels-last layouts, checked against ONNX Runtime and numpy.

    /usr/bin/python3 test/e2e/generated/run_maxpool_nhwc_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

With `--layout nhwc` (and in every quantized model) a MaxPool after a convolution runs
channels-last (kiln_kernel.max_pool_2d_nhwc, the channels-last vector kernel): the
transposes around it cancel. Each case is a 1x1 Conv (so the pooling reads a
channels-last tensor) then a MaxPool: kernels 2x2 and 3x3, strides 1 and 2, symmetric and
asymmetric pads, dilation 2, ceil_mode, SAME_UPPER, channel counts that are and are not
multiples of the vector length, batch 2, and a NaN pixel (skipped by the window maximum;
against numpy alone, since ONNX Runtime's result there depends on where in the window
the NaN falls). Compiled for the host CPU and for x86-64-v3,
channels-last and channels-first. ONNX Runtime (graph optimisations disabled) and a
float64 numpy reference must agree before kiln's output is compared with them.
Prints one line per case and compilation and `N passed, N failed`.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 4242

# name: (x shape [N, C, H, W], kernel, strides, pads [t, l, b, r], dilations, ceil_mode,
#        auto_pad)
CASES = {
    "k3_s2_p1_resnet_stem": ((1, 64, 28, 28), [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 0, None),
    "k2_s2_c20": ((1, 20, 10, 12), [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], 0, None),
    "k3_s1_asym_c7": ((2, 7, 9, 11), [3, 3], [1, 1], [0, 1, 2, 1], [1, 1], 0, None),
    "k3_s2_ceil_c40": ((1, 40, 13, 14), [3, 3], [2, 2], [0, 0, 0, 0], [1, 1], 1, None),
    "k3_dil2_c16": ((1, 16, 12, 12), [3, 3], [1, 1], [2, 2, 2, 2], [2, 2], 0, None),
    "k3_same_upper_c33": ((1, 33, 9, 10), [3, 3], [2, 2], None, [1, 1], 0, "SAME_UPPER"),
    "k3_s2_p1_nan_pixel": ((1, 48, 20, 20), [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 0, None),
}

CPUS = [("native nhwc", ["--cpu", "native", "--layout", "nhwc"]),
        ("x86-64-v3 nhwc", ["--cpu", "x86-64-v3", "--layout", "nhwc"]),
        ("native", ["--cpu", "native"])]


def max_pool(y, kernel, strides, pads, dilations, ceil_mode, auto_pad):
    n, c, h, w = y.shape
    if auto_pad == "SAME_UPPER":
        pads = [0, 0, 0, 0]
        for d, size in enumerate((h, w)):
            out = -(-size // strides[d])
            total = max(0, (out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - size)
            pads[d], pads[d + 2] = total // 2, total - total // 2
    outs = []
    for d, size in enumerate((h, w)):
        span = (kernel[d] - 1) * dilations[d] + 1
        num = size + pads[d] + pads[d + 2] - span
        out = (-(-num // strides[d]) if ceil_mode else num // strides[d]) + 1
        if ceil_mode and (out - 1) * strides[d] >= size + pads[d]:
            out -= 1
        outs.append(out)
    hp = max(h + pads[0] + pads[2], (outs[0] - 1) * strides[0] + (kernel[0] - 1) * dilations[0] + 1)
    wp = max(w + pads[1] + pads[3], (outs[1] - 1) * strides[1] + (kernel[1] - 1) * dilations[1] + 1)
    xp = np.full((n, c, hp, wp), -np.inf)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = y
    r = np.full((n, c, outs[0], outs[1]), -np.inf)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            a, b = i * dilations[0], j * dilations[1]
            r = np.fmax(r, xp[:, :, a:a + strides[0] * (outs[0] - 1) + 1:strides[0],
                                 b:b + strides[1] * (outs[1] - 1) + 1:strides[1]])
    return r


def check_case(args, name, spec, work):
    from onnx import TensorProto as T, helper, numpy_helper as nh
    xshape, kernel, strides, pads, dilations, ceil_mode, auto_pad = spec
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    c = xshape[1]
    x = rng.standard_normal(xshape).astype(np.float32)
    if "nan" in name:
        x[0, :, 7, 4] = np.nan  # every channel of the 1x1 conv's output at that pixel
    w = rng.standard_normal((c, c, 1, 1)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        y = np.einsum("nchw,mc->nmhw", x.astype(np.float64), w[:, :, 0, 0].astype(np.float64))
    ref = max_pool(y, kernel, strides, pads, dilations, ceil_mode, auto_pad)
    attrs = dict(kernel_shape=kernel, strides=strides, dilations=dilations,
                 ceil_mode=ceil_mode)
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = pads
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]),
             helper.make_node("MaxPool", ["c"], ["y"], **attrs)]
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", T.FLOAT, xshape)],
                              [helper.make_tensor_value_info("y", T.FLOAT, list(ref.shape))],
                              [nh.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path, inputs = gen.save_case(model, [x], work)
    if "nan" in name:
        return [(label,) + gen.run_kiln(args, path, inputs, ref, work, label, extra)
                for label, extra in CPUS]
    return gen.check_against_references(args, path, inputs, ref, work, CPUS)


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_maxpool_nhwc_", CASES, check_case))
