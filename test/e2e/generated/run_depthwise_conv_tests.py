#!/usr/bin/python3
"""Generated depthwise Conv models through kiln, checked against ONNX Runtime.

    /usr/bin/python3 test/e2e/generated/run_depthwise_conv_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

The ONNX backend node tests have almost no depthwise convolutions (group == channels),
which the CPU backend runs through its own vector kernel. These cases cover its edges:
3x3 and 5x5 kernels, stride 1 and 2 (and 2x1 as in the PaddleOCR classifier), output
widths that are and are not multiples of the vector length, widths shorter than one
vector, input rows exactly as wide as the last window, a single output row, batches,
weights as a graph input, a detector-sized layer, dilated windows, and channel
multipliers (m output channels per input channel, run by the depthwise kernel over the
input channels repeated m times where that pays, else as a grouped convolution). Each
model is compiled for the
host CPU (--cpu native: 512-bit vectors where it has AVX-512) and for x86-64-v3
(256-bit), each channels-first (the NCHW kernel) and with --layout nhwc (the
channels-last kernel: vectors along the channels, masked when C is not a multiple).
ONNX Runtime (graph optimisations disabled) and a float64 numpy implementation of the
ONNX definition must agree before kiln's output is compared with them. A case passes
when max|kiln - ref| / max|ref| <= --tol for every compilation.
Prints one line per case and CPU and `N passed, N failed`; exits non-zero on any failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 2718

# name: (input shape [N, C, H, W], kernel [KH, KW], strides, pads [top, left, bottom,
#        right], bias, weight is an initializer[, dilations[, channel multiplier]])
CASES = {
    "k3_s1_w20_bias": ((1, 8, 12, 20), [3, 3], [1, 1], [1, 1, 1, 1], True, True),
    "k3_s2_w20": ((1, 8, 13, 39), [3, 3], [2, 2], [1, 1, 1, 1], False, True),
    "k5_s1_w37": ((1, 16, 11, 37), [5, 5], [1, 1], [2, 2, 2, 2], True, True),
    "k5_s2_w23": ((1, 12, 10, 45), [5, 5], [2, 2], [2, 2, 2, 2], False, True),
    "k3_s2_exact_row_w32": ((1, 4, 9, 65), [3, 3], [2, 2], [0, 0, 0, 0], False, True),
    "k3_s2_exact_row_w64": ((1, 4, 9, 129), [3, 3], [2, 2], [0, 0, 0, 0], False, True),
    "k5_s1_exact_row_w64": ((1, 4, 9, 68), [5, 5], [1, 1], [0, 0, 0, 0], False, True),
    "k3_s2x1_w96_cls": ((1, 8, 24, 96), [3, 3], [2, 1], [1, 1, 1, 1], True, True),
    "k5_s2x1_w96_cls": ((1, 32, 6, 96), [5, 5], [2, 1], [2, 2, 2, 2], False, True),
    "k5_s1_w6_narrow": ((1, 32, 6, 6), [5, 5], [1, 1], [2, 2, 2, 2], True, True),
    "k3_s1_h1": ((1, 16, 1, 50), [3, 3], [1, 1], [1, 1, 1, 1], False, True),
    "k3_s1_batch2_w17": ((2, 6, 10, 17), [3, 3], [1, 1], [1, 1, 1, 1], True, True),
    "k5_s2_asym_pads_w15": ((1, 8, 9, 30), [5, 5], [2, 2], [2, 1, 1, 2], False, True),
    "k3_s1_weight_input": ((1, 8, 7, 21), [3, 3], [1, 1], [1, 1, 1, 1], False, False),
    "k3_s1_det_w40": ((1, 96, 40, 40), [3, 3], [1, 1], [1, 1, 1, 1], True, True),
    "k5_s2_det_w10": ((1, 192, 20, 20), [5, 5], [2, 2], [2, 2, 2, 2], False, True),
    # Dilated (atrous) windows: taps dh rows and dw columns apart.
    "k3_s1_d2_w37": ((1, 16, 20, 37), [3, 3], [1, 1], [2, 2, 2, 2], True, True, [2, 2]),
    "k3_s2_d2_w41": ((1, 8, 21, 41), [3, 3], [2, 2], [2, 2, 2, 2], False, True, [2, 2]),
    "k3_s1_d2x3_w30": ((1, 12, 15, 30), [3, 3], [1, 1], [2, 3, 2, 3], True, True, [2, 3]),
    "k5_s1_d4_w12": ((1, 8, 18, 12), [5, 5], [1, 1], [8, 8, 8, 8], False, True, [4, 4]),
    "k3_s1_d6_exact_row": ((1, 4, 13, 29), [3, 3], [1, 1], [0, 0, 0, 0], False, True, [6, 6]),
    # Channel multipliers: repeated input channels (5x5 m = 2, 3x3 m = 4, a batch of
    # two, weights at run time) and the grouped form (stride 2 m = 4, 3x3 m = 16).
    "k5_s1_m2_w41": ((1, 6, 23, 41), [5, 5], [1, 1], [2, 2, 2, 2], True, True, [1, 1], 2),
    "k3_s1_m4_batch2": ((2, 5, 12, 19), [3, 3], [1, 1], [1, 1, 1, 1], True, True, [1, 1], 4),
    "k5_s2_m2_weight_input": ((1, 4, 17, 17), [5, 5], [2, 2], [2, 2, 2, 2], False, False,
                              [1, 1], 2),
    "k3_s2_m4_grouped": ((1, 6, 15, 22), [3, 3], [2, 2], [1, 1, 1, 1], True, True, [1, 1], 4),
    "k3_s1_m16_grouped": ((1, 3, 14, 14), [3, 3], [1, 1], [1, 1, 1, 1], False, True, [1, 1],
                          16),
}

# (label, extra `kiln compile` arguments)
CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"]),
        ("native nhwc", ["--cpu", "native", "--layout", "nhwc"]),
        ("x86-64-v3 nhwc", ["--cpu", "x86-64-v3", "--layout", "nhwc"])]


def reference(x, w, b, strides, pads, dilations=(1, 1)):
    """Depthwise convolution (ONNX Conv with group == channels), in float64; `w` has m
    output channels per input channel, which reads input channel f // m."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    x = np.repeat(x, w.shape[0] // x.shape[1], axis=1)
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    sh, sw = strides
    dh, dw = dilations
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]))
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[3] - (kw - 1) * dw - 1) // sw + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(kh):
        for j in range(kw):
            window = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                        j * dw:j * dw + sw * (ow - 1) + 1:sw]
            y += window * w[:, 0, i, j].reshape(1, c, 1, 1)
    if b is not None:
        y += b.astype(np.float64).reshape(1, c, 1, 1)
    return y


def make_case(name, spec, rng, work):
    """Writes the model and its inputs; returns (model path, input paths, numpy reference)."""
    xshape, kernel, strides, pads, has_bias, const_w = spec[:6]
    dilations = spec[6] if len(spec) > 6 else [1, 1]
    m = spec[7] if len(spec) > 7 else 1
    c = xshape[1]
    x = rng.standard_normal(xshape).astype(np.float32)
    w = rng.standard_normal([c * m, 1] + kernel).astype(np.float32)
    b = rng.standard_normal([c * m]).astype(np.float32) if has_bias else None
    ref = reference(x, w, b, strides, pads, dilations)

    model, inputs = gen.save_conv_case("Conv", name, x, w, b, const_w, list(xshape),
                                       list(ref.shape), 13, work, kernel_shape=kernel,
                                       strides=strides, pads=pads, group=c,
                                       dilations=dilations)
    return model, inputs, ref


def check_case(args, name, spec, work):
    """Returns [(label, ok, message)], one per CPU."""
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    model, inputs, ref = make_case(name, spec, rng, work)
    return gen.check_against_references(args, model, inputs, ref, work, CPUS)


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_depthwise_", CASES, check_case))
