#!/usr/bin/python3
"""3x3 convolutions through Winograd and pixel-row products, checked against float64.

    /usr/bin/python3 test/e2e/generated/run_winograd_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-4] [--keep]

The CPU backend runs 3x3 stride-1 f32 convolutions with a constant filter as Winograd
F(4x4,3x3) or F(2x2,3x3) (input transform, one product per transformed tap with the
tiles as its columns or, for fewer tiles, its rows, output transform plus the bias),
and convolutions with few output pixels as a product with the pixels as rows and the
filter packed in channel panels. Each case is compiled with the default heuristics and
with every one of those strategies forced through a schedule file, for the host CPU
(512-bit vectors where it has them) and for x86-64-v3 (256-bit vectors: other panel
widths), so that every path meets every shape: output sizes that are and are not
multiples of the tile, a batch of two, asymmetric pads, channel counts that do not fill
a panel, tiny channel counts, and a filter fed at run time (which no transform
applies to). Grouped convolutions are compiled with the default (one im2col product
per group) and with im2col_transposed forced: one gather of all groups and a pixel-row
product per panel of a group's channels, or, where it does not apply (groups narrower
than a panel, a filter fed at run time, a strided view), the default again. ONNX
Runtime (graph optimisations disabled) and a float64 numpy
implementation of the ONNX definition must agree before kiln's output is compared
with them: max|kiln - ref| / max|ref| <= --tol (F(4x4,3x3) rounds its transforms'
sixths and twenty-fourths: about 1e-5 of the output's range at 512 channels).
Prints one line per case and compilation and `N passed, N failed`; exits non-zero on
any failure.
"""

import json
import os
import sys

import numpy as np

import generated_cases as gen
from run_conv_tests import reference

SEED = 2718

# name: (input shape [N, C, H, W], output channels, pads [top, left, bottom, right],
#        bias, weight is an initializer[, groups, strides])
CASES = {
    # 8x8 tiles of F(4x4): 64 tiles, the products take them as rows.
    "w30_64to64": ((1, 64, 30, 30), 64, [1, 1, 1, 1], True, True),
    # 40 channels fill no panel: tiles as columns; 27 = 6 tiles of 4 and 3 cropped.
    "w27_48to40_nobias": ((1, 48, 27, 27), 40, [1, 1, 1, 1], False, True),
    # A batch of two: tiles of both images in one product.
    "w13_batch2_32to64": ((2, 32, 13, 13), 64, [1, 1, 1, 1], True, True),
    # Asymmetric pads, a non-square map, an odd channel count.
    "h10w17_pads_33to32": ((1, 33, 10, 17), 32, [0, 1, 2, 1], True, True),
    # 16 tiles of F(4x4), 49 of F(2x2): F(2x2) by default, tiles as rows.
    "w14_64to96": ((1, 64, 14, 14), 96, [1, 1, 1, 1], True, True),
    # Few pixels, many channels: the pixel-row product by default.
    "w7_256to512": ((1, 256, 7, 7), 512, [1, 1, 1, 1], True, True),
    # 49 tiles as rows against many panels of channels.
    "w28_16to256": ((1, 16, 28, 28), 256, [1, 1, 1, 1], True, True),
    # Large maps: tiles as columns, more than one column block.
    "w57_32to32": ((1, 32, 57, 57), 32, [1, 1, 1, 1], True, True),
    # Channels too few for the heuristics; forced, the transforms still hold.
    "w6_8to8": ((1, 8, 6, 6), 8, [1, 1, 1, 1], True, True),
    # A filter fed at run time: no compile-time transform, im2col instead.
    "w20_weight_input": ((1, 32, 20, 20), 32, [1, 1, 1, 1], True, False),
    # Grouped: 8 groups of 32 channels at 7x7 (two 16-lane panels a group).
    "g7_256to256_8groups": ((1, 256, 7, 7), 256, [1, 1, 1, 1], True, True, 8),
    # 8 groups of 16 at 14x14, no bias (the products start from zero).
    "g14_128to128_8groups_nobias": ((1, 128, 14, 14), 128, [1, 1, 1, 1], False, True, 8),
    # Stride 2, asymmetric pads, 4 groups of 16 input and 32 output channels.
    "g15_64to128_4groups_s2": ((1, 64, 15, 15), 128, [0, 1, 1, 0], True, True, 4, [2, 2]),
    # Groups of 8 channels: narrower than a 16-lane panel.
    "g9_64to64_8groups": ((1, 64, 9, 9), 64, [1, 1, 1, 1], True, True, 8),
    # A grouped filter fed at run time.
    "g7_64to64_weight_input": ((1, 64, 7, 7), 64, [1, 1, 1, 1], True, False, 4),
}

STRATEGIES = ["winograd_f4", "winograd_f2", "im2col_transposed"]
CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"])]


def compilations(name, work, strategies):
    """(label, extra compile arguments): the defaults, then each strategy forced."""
    out = []
    for cpu, args in CPUS:
        out.append((cpu, args))
        for strategy in strategies:
            path = os.path.join(work, f"{strategy}.json")
            with open(path, "w") as f:
                json.dump({name: {"strategy": strategy}}, f)
            out.append((f"{cpu} {strategy}", args + ["--schedule-file", path]))
    return out


def check_case(args, name, spec, work):
    """Returns [(label, ok, message)], one per compilation."""
    xshape, f, pads, has_bias, const_w = spec[:5]
    group = spec[5] if len(spec) > 5 else 1
    strides = spec[6] if len(spec) > 6 else [1, 1]
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    x = rng.standard_normal(xshape).astype(np.float32)
    w = rng.standard_normal([f, xshape[1] // group, 3, 3]).astype(np.float32)
    b = rng.standard_normal([f]).astype(np.float32) if has_bias else None
    ref = reference(x, w, b, strides, [1, 1], pads, group)
    model, inputs = gen.save_conv_case("Conv", name, x, w, b, const_w, list(xshape),
                                       list(ref.shape), 13, work, kernel_shape=[3, 3],
                                       pads=pads, group=group, strides=strides)
    # A grouped convolution has one strategy besides the default.
    strategies = STRATEGIES if group == 1 else ["im2col_transposed"]
    return gen.check_against_references(args, model, inputs, ref, work,
                                        compilations(name, work, strategies))


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_winograd_", CASES, check_case))
