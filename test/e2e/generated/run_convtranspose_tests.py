#!/usr/bin/python3
"""Generated ConvTranspose models through kiln, checked against ONNX Runtime.

    /usr/bin/python3 test/e2e/generated/run_convtranspose_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

The ONNX backend node tests have batch 1, one input channel and no group, and never
combine strides that differ from the kernel with pads, output_padding and dilations;
these cases do, plus batches (static and symbolic), groups, 1-D/3-D, non-constant
weights and the PP-OCR detector's 2x2/stride-2 upsampling. Each model is run by ONNX
Runtime (graph optimisations disabled) and by a float64 numpy scatter implementation
of the ONNX definition; the two must agree before kiln's output is compared with them.
A case passes when max|kiln - ref| / max|ref| <= --tol.
Prints one line per case and `N passed, N failed`; exits non-zero on any failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 4321

# name: (input shape [N, C, spatial...], out channels per group, attributes,
#        weight is an initializer, bias, symbolic batch (or "image": batch and image
#        extents symbolic, the output sized at run time))
CASES = {
    "dynamic_image_det_upsample": ((1, 24, 10, 12), 24, dict(kernel_shape=[2, 2],
                                                             strides=[2, 2]),
                                   True, True, "image"),
    "dynamic_image_s3x2_k3x4_pads_outpad_dil": ((2, 3, 5, 4), 2,
                                                dict(kernel_shape=[3, 4], strides=[3, 2],
                                                     pads=[1, 2, 0, 1], output_padding=[1, 1],
                                                     dilations=[1, 2]),
                                                True, True, "image"),
    "dynamic_image_group2_s2_k3": ((1, 4, 5, 5), 3, dict(kernel_shape=[3, 3], strides=[2, 2],
                                                         group=2, pads=[1, 1, 1, 1]),
                                   False, False, "image"),
    "dynamic_image_conv1d_s2_outpad": ((2, 3, 7), 2, dict(strides=[2], pads=[1, 2],
                                                          output_padding=[1]),
                                       True, True, "image"),
    "det_upsample_24to24": ((1, 24, 10, 12), 24, dict(kernel_shape=[2, 2], strides=[2, 2]),
                            True, False, False),
    "det_upsample_24to1": ((1, 24, 16, 16), 1, dict(kernel_shape=[2, 2], strides=[2, 2]),
                           True, False, False),
    "s2k2_bias_batch3": ((3, 5, 6, 7), 4, dict(strides=[2, 2]), True, True, False),
    "s2k2_pads": ((1, 4, 6, 6), 3, dict(strides=[2, 2], pads=[1, 0, 0, 1]), True, True, False),
    "s2k2_output_padding": ((1, 4, 5, 5), 3, dict(strides=[2, 2], output_padding=[1, 0]),
                            True, True, False),
    "s3x2_k3x4_pads_outpad_dil": ((2, 3, 5, 4), 2,
                                  dict(kernel_shape=[3, 4], strides=[3, 2],
                                       pads=[1, 2, 0, 1], output_padding=[1, 1],
                                       dilations=[1, 2]),
                                  True, True, False),
    "s2_k3_pads_outpad_dil2": ((1, 6, 7, 5), 5,
                               dict(kernel_shape=[3, 3], strides=[2, 2], pads=[2, 1, 1, 2],
                                    output_padding=[1, 1], dilations=[2, 2]),
                               True, False, False),
    "s1_k3_pads": ((1, 3, 6, 6), 4, dict(pads=[1, 1, 1, 1]), True, True, False),
    "same_lower_s2_k3": ((1, 2, 5, 6), 3, dict(kernel_shape=[3, 3], strides=[2, 2],
                                               auto_pad="SAME_LOWER"), True, True, False),
    "output_shape_s2_k3": ((1, 2, 4, 4), 3, dict(kernel_shape=[3, 3], strides=[2, 2],
                                                 output_shape=[8, 9]), True, False, False),
    "conv1d_s2_k3_pads_outpad": ((2, 3, 7), 2, dict(strides=[2], pads=[1, 2],
                                                   output_padding=[1]), True, True, False),
    "conv3d_s2_k2": ((1, 3, 3, 4, 5), 2, dict(strides=[2, 2, 2]), True, True, False),
    "conv3d_s2_k3_pads": ((1, 2, 3, 3, 4), 2, dict(kernel_shape=[3, 3, 3],
                                                   strides=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0]),
                          True, False, False),
    "weight_input_s2k2": ((1, 4, 5, 6), 3, dict(strides=[2, 2]), False, True, False),
    "weight_input_s2_k3_pads": ((2, 4, 5, 6), 3, dict(kernel_shape=[3, 3], strides=[2, 2],
                                                      pads=[1, 1, 1, 1]),
                                False, False, False),
    "symbolic_batch_s2k2": ((2, 4, 5, 6), 3, dict(strides=[2, 2]), True, True, True),
    "symbolic_batch_s2_k3_outpad": ((3, 4, 5, 6), 2, dict(kernel_shape=[3, 3], strides=[2, 2],
                                                          output_padding=[1, 1]),
                                    True, True, True),
    "group2_s2_k3": ((1, 4, 5, 5), 3, dict(kernel_shape=[3, 3], strides=[2, 2], group=2,
                                           pads=[1, 1, 1, 1]), True, True, False),
}


def reference(x, w, b, attrs):
    """ConvTranspose by scattering every input pixel's weighted kernel (ONNX operator
    definition), in float64."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    group = attrs.get("group", 1)
    m = w.shape[1] * group
    k = w.shape[2:]
    s = attrs.get("strides", [1] * r)
    d = attrs.get("dilations", [1] * r)
    op = attrs.get("output_padding", [0] * r)
    full = [s[i] * (spatial[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 for i in range(r)]
    if "output_shape" in attrs or attrs.get("auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER"):
        out = attrs.get("output_shape", [spatial[i] * s[i] for i in range(r)])
        total = [full[i] - out[i] for i in range(r)]
        if attrs.get("auto_pad") == "SAME_UPPER":
            begin = [t // 2 for t in total]
        else:
            begin = [t - t // 2 for t in total]
    else:
        pads = attrs.get("pads", [0] * (2 * r))
        begin = pads[:r]
        out = [full[i] - pads[i] - pads[r + i] for i in range(r)]
    # The full output, with room for an output window that reaches past it.
    front = [max(0, -begin[i]) for i in range(r)]
    y = np.zeros([n, m] + [front[i] + max(full[i], begin[i] + out[i]) for i in range(r)])
    cg, mg = c // group, m // group
    for gi in range(group):
        xs = x[:, gi * cg:(gi + 1) * cg]
        ws = w[gi * cg:(gi + 1) * cg]
        for tap in np.ndindex(*k):
            # [N, Mg, spatial...] contribution of this tap.
            contrib = np.einsum("nc...,cm->nm...", xs, ws[(slice(None), slice(None)) + tap])
            first = [front[i] + tap[i] * d[i] for i in range(r)]
            idx = tuple(slice(first[i], first[i] + s[i] * (spatial[i] - 1) + 1, s[i])
                        for i in range(r))
            y[(slice(None), slice(gi * mg, (gi + 1) * mg)) + idx] += contrib
    y = y[(slice(None), slice(None)) + tuple(slice(front[i] + begin[i], front[i] + begin[i] + out[i])
                                                for i in range(r))]
    if b is not None:
        y += b.astype(np.float64).reshape([1, m] + [1] * r)
    return y


def make_case(name, spec, rng, work):
    """Writes the model and its inputs; returns (model path, input paths, numpy reference)."""
    xshape, mg, attrs, const_w, has_bias, symbolic = spec
    r = len(xshape) - 2
    group = attrs.get("group", 1)
    kernel = attrs.get("kernel_shape", [2] * r if r != 1 else [3])
    x = rng.standard_normal(xshape).astype(np.float32)
    w = rng.standard_normal([xshape[1], mg] + list(kernel)).astype(np.float32)
    b = rng.standard_normal([mg * group]).astype(np.float32) if has_bias else None
    ref = reference(x, w, b, attrs)

    xdims = ["N"] + list(xshape[1:]) if symbolic else list(xshape)
    ydims = ["N"] + list(ref.shape[1:]) if symbolic else list(ref.shape)
    if symbolic == "image":
        xdims = ["N", xshape[1]] + [f"S{i}" for i in range(r)]
        ydims = ["N", ref.shape[1]] + [f"O{i}" for i in range(r)]
    model, inputs = gen.save_conv_case("ConvTranspose", name, x, w, b, const_w, xdims, ydims,
                                       17, work, **attrs)
    return model, inputs, ref


def check_case(args, name, spec, work):
    """Returns [(label, ok, message)]."""
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    model, inputs, ref = make_case(name, spec, rng, work)
    return gen.check_against_references(args, model, inputs, ref, work, [("native", ["--cpu", "native"])])


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_convtranspose_", CASES, check_case))
