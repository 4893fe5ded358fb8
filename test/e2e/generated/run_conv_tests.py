#!/usr/bin/python3
"""Generated dense Conv models through kiln, checked against ONNX Runtime.

    /usr/bin/python3 test/e2e/generated/run_conv_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

The CPU backend runs a dense convolution as an im2col gather and a matmul. A 1x1
convolution with unit strides skips the gather; a batch-1 convolution whose im2col
matrix would not stay in cache runs in blocks of output rows, each gathered into a
per-thread scratch tile and multiplied right away, with the bias applied per block.
The ONNX backend node tests are all too small to reach the blocked form, so these
cases cover it: detector-sized layers, strides, dilations, asymmetric pads, output
heights with no divisor that fits a block (a prime), weights as a graph input, and
the paths next to it (pointwise, strided pointwise, batch 2, groups). Each model is
compiled for the host CPU (--cpu native) and for x86-64-v3 (256-bit vectors). ONNX Runtime (graph
optimisations disabled) and a float64 numpy implementation of the ONNX definition
must agree before kiln's output is compared with them. A case passes when
max|kiln - ref| / max|ref| <= --tol for every compilation.
Prints one line per case and CPU and `N passed, N failed`; exits non-zero on any failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 3141

# name: (input shape [N, C, H, W], output channels, kernel [KH, KW], strides,
#        dilations, pads [top, left, bottom, right], group, bias, weight is an initializer
#        [, image extents symbolic in the model: N, H and W dynamic, the output sized at
#        run time])
CASES = {
    "dynamic_image_k3_dil2_pads": ((2, 8, 13, 17), 6, [3, 3], [1, 1], [2, 2], [2, 1, 2, 3], 1,
                                   True, True, True),
    "dynamic_image_k3_s2x1_group2": ((1, 8, 11, 9), 10, [3, 3], [2, 1], [1, 1], [1, 1, 1, 1],
                                     2, True, True, True),
    "dynamic_image_k1_weight_input": ((1, 12, 7, 5), 4, [1, 1], [1, 1], [1, 1], [0, 1, 0, 1],
                                      1, False, False, True),
    "dynamic_image_depthwise_k5": ((1, 6, 9, 12), 6, [5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 6,
                                   True, True, True),
    "k3_det_neck_96to24_w80": ((1, 96, 80, 80), 24, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1,
                               True, True),
    "k3_s2_16to32_w160": ((1, 16, 160, 160), 32, [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 1,
                          True, True),
    "k3_dil2_32to40_w40": ((1, 32, 40, 40), 40, [3, 3], [1, 1], [2, 2], [2, 2, 2, 2], 1,
                           False, True),
    "k5_asym_pads_24to20_w61": ((1, 24, 47, 61), 20, [5, 5], [1, 1], [1, 1], [2, 1, 1, 3], 1,
                                True, True),
    "k3_prime_height_64to8": ((1, 64, 37, 90), 8, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1,
                              True, True),
    "k3_weight_input_48to17": ((1, 48, 64, 64), 17, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1,
                               False, False),
    "k3_s2x1_64to33_w96": ((1, 64, 48, 96), 33, [3, 3], [2, 1], [1, 1], [1, 1, 1, 1], 1,
                           True, True),
    "k3_single_output_channel": ((1, 96, 64, 64), 1, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1,
                                 True, True),
    "k3_small_map": ((1, 16, 10, 10), 24, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1, True, True),
    # Outputs of fewer pixels than a vector's lanes, channels in no whole
    # panels: the pixels as the product's rows, all channels one panel. A
    # squeeze-excitation 1x1 on one pixel, and 9 pixels from a 5x5 stride 2.
    "k1_one_pixel_se_152to38": ((1, 152, 1, 1), 38, [1, 1], [1, 1], [1, 1], [0, 0, 0, 0], 1,
                                True, True),
    "k5_s2_nine_pixels_60to70": ((1, 60, 5, 5), 70, [5, 5], [2, 2], [1, 1], [2, 2, 2, 2], 1,
                                 True, True),
    # 7x7 maps with channels past the last whole panel of 32: the pixel-row
    # product's last panel is a product of its own (with and without bias).
    "k3_7x7_partial_panel_64to70": ((1, 64, 7, 7), 70, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1],
                                    1, True, True),
    "k1_7x7_partial_panel_130to100": ((1, 130, 7, 7), 100, [1, 1], [1, 1], [1, 1],
                                      [0, 0, 0, 0], 1, False, True),
    "k1_pointwise_40to56": ((1, 40, 33, 47), 56, [1, 1], [1, 1], [1, 1], [0, 0, 0, 0], 1,
                            True, True),
    "k1_pointwise_pads": ((1, 8, 12, 12), 16, [1, 1], [1, 1], [1, 1], [1, 0, 1, 2], 1,
                          True, True),
    "k1_s2_pointwise": ((1, 32, 40, 40), 24, [1, 1], [2, 2], [1, 1], [0, 0, 0, 0], 1,
                        False, True),
    "k3_batch2": ((2, 16, 40, 40), 24, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1, True, True),
    # Static batches run as a loop of batch-1 convolutions, one image each:
    # pointwise over three images, stride 2 over an odd image whose last
    # input row no output reads, and weights fed at run time.
    "k1_batch3_61to36_w32": ((3, 61, 32, 32), 36, [1, 1], [1, 1], [1, 1], [0, 0, 0, 0], 1,
                             True, True),
    "k3_s2_batch2_24to46_w51x53": ((2, 24, 51, 53), 46, [3, 3], [2, 2], [1, 1],
                                   [1, 1, 1, 1], 1, True, True),
    "k3_batch2_weight_input": ((2, 12, 15, 15), 20, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1,
                               True, False),
    "k3_group2_32to32_w60": ((1, 32, 60, 60), 32, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 2,
                             True, True),
    # Grouped convolutions run as a loop over the groups: ResNeXt's 32 groups,
    # RegNet's 8-channel groups at stride 2, odd group widths, a batch of two,
    # dilation, and a weight fed at run time.
    "k3_group32_256_w14": ((1, 256, 14, 14), 256, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 32,
                           True, True),
    "k3_group26_s2_208_w15": ((1, 208, 15, 15), 208, [3, 3], [2, 2], [1, 1],
                              [1, 1, 1, 1], 26, True, True),
    "k3_group3_21to15_w19": ((1, 21, 19, 19), 15, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 3,
                             False, True),
    "k3_group4_batch2_dil2": ((2, 32, 24, 24), 16, [3, 3], [1, 1], [2, 2], [2, 2, 2, 2], 4,
                              True, True),
    "k3_group8_s2_batch2_w29": ((2, 64, 29, 29), 64, [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 8,
                                True, True),
    "k3_group8_weight_input": ((1, 64, 20, 20), 64, [3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 8,
                               True, False),
}

# (label, extra `kiln compile` arguments)
CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"])]


def reference(x, w, b, strides, dilations, pads, group):
    """ONNX Conv (NCHW, grouped), in float64, one kernel tap at a time."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]))
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    fg = f // group
    y = np.zeros((n, f, oh, ow))
    for g in range(group):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * fg:(g + 1) * fg]
        for i in range(kh):
            for j in range(kw):
                window = xg[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                            j * dw:j * dw + sw * (ow - 1) + 1:sw]
                y[:, g * fg:(g + 1) * fg] += np.einsum("nchw,fc->nfhw", window, wg[:, :, i, j])
    if b is not None:
        y += b.astype(np.float64).reshape(1, f, 1, 1)
    return y


def make_case(name, spec, rng, work):
    """Writes the model and its inputs; returns (model path, input paths, numpy reference)."""
    xshape, f, kernel, strides, dilations, pads, group, has_bias, const_w = spec[:9]
    dynamic = len(spec) > 9 and spec[9]
    x = rng.standard_normal(xshape).astype(np.float32)
    w = rng.standard_normal([f, xshape[1] // group] + kernel).astype(np.float32)
    b = rng.standard_normal([f]).astype(np.float32) if has_bias else None
    ref = reference(x, w, b, strides, dilations, pads, group)
    xdims, ydims = list(xshape), list(ref.shape)
    if dynamic:
        xdims = ["N", xshape[1], "H", "W"]
        ydims = ["N", f, "OH", "OW"]
    model, inputs = gen.save_conv_case("Conv", name, x, w, b, const_w, xdims,
                                       ydims, 13, work, kernel_shape=kernel,
                                       strides=strides, dilations=dilations, pads=pads,
                                       group=group)
    return model, inputs, ref


def check_case(args, name, spec, work):
    """Returns [(label, ok, message)], one per CPU."""
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    model, inputs, ref = make_case(name, spec, rng, work)
    cpus = CPUS
    if "batch" in name:
        # Static batches also channels-last (a loop of NHWC convolutions).
        cpus = CPUS + [("native nhwc", ["--cpu", "native", "--layout", "nhwc"])]
    return gen.check_against_references(args, model, inputs, ref, work, cpus)


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_conv_", CASES, check_case))
