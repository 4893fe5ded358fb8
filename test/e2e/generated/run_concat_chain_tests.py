#!/usr/bin/python3
"""Generated concat chains (DenseNet blocks) through kiln, checked against ONNX Runtime.

    /usr/bin/python3 test/e2e/generated/run_concat_chain_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

A DenseNet block concatenates every earlier feature map again in each layer;
kiln-share-concat-prefixes makes each concat take the previous one, and
kiln-nest-inserted-tensors builds the whole chain in one buffer, each concat a
leading slice of the next. Each case is such a block (ReLU, then a 3x3 or 1x1
convolution adding a few channels), with odd sizes, an early concat read
again after the later layers have written the shared buffer, or a chain along
another axis with elementwise layers. Compiled for the host CPU (--cpu native)
and for x86-64-v3; ONNX Runtime (graph optimisations disabled) and a float64
numpy implementation must agree before kiln's output is compared with them.
Prints one line per case and CPU and `N passed, N failed`; exits non-zero on any
failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 3141

CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"])]

# name: (input channels, growth, size, layers, kernel, extra)
CASES = {
    "dense_3x3": (16, 8, 12, 4, 3, None),
    "dense_3x3_odd": (13, 5, 9, 5, 3, None),
    "dense_1x1_wide": (24, 12, 20, 3, 1, None),
    # The block's output is the last concat beside the second one, which
    # the later layers' concats contain: it must still hold its own values.
    "dense_read_late": (8, 4, 10, 4, 3, "late"),
    # Along the rows, each layer elementwise over the input and the mean of
    # the previous concat.
    "rows_elementwise": (4, 0, 6, 4, 0, "rows"),
}


def conv(x, w):
    """float64 convolution, stride 1, 'same' padding."""
    k = w.shape[-1]
    p = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    h, wd = x.shape[2], x.shape[3]
    y = np.zeros((x.shape[0], w.shape[0], h, wd))
    for i in range(k):
        for j in range(k):
            y += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return y


def make_case(name, spec, rng, work):
    """Writes the model and its input; returns (model path, input paths, numpy reference)."""
    from onnx import TensorProto, helper, numpy_helper
    c0, growth, size, layers, k, extra = spec
    nodes, inits = [], []
    if extra == "rows":
        x = rng.standard_normal((1, c0, size, 5)).astype(np.float32)
        feats, refs = ["x"], [x.astype(np.float64)]
        cat, cat_ref = "x", refs[0]
        for i in range(layers):
            nodes += [helper.make_node("ReduceMean", [cat], [f"m{i}"], axes=[2], keepdims=1),
                      helper.make_node("Add", ["x", f"m{i}"], [f"a{i}"]),
                      helper.make_node("Tanh", [f"a{i}"], [f"f{i}"])]
            f = np.tanh(refs[0] + cat_ref.mean(axis=2, keepdims=True))
            feats.append(f"f{i}")
            refs.append(f)
            cat = f"cat{i}"
            nodes.append(helper.make_node("Concat", list(feats), [cat], axis=2))
            cat_ref = np.concatenate(refs, axis=2)
        nodes.append(helper.make_node("Identity", [cat], ["out"]))
        ref = cat_ref
    else:
        x = rng.standard_normal((1, c0, size, size)).astype(np.float32)
        feats, refs, cats = ["x"], [x.astype(np.float64)], []
        inp, inp_ref = "x", refs[0]
        for i in range(layers):
            c = inp_ref.shape[1]
            w = (rng.standard_normal((growth, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
            inits.append(numpy_helper.from_array(w, f"w{i}"))
            nodes += [helper.make_node("Relu", [inp], [f"r{i}"]),
                      helper.make_node("Conv", [f"r{i}", f"w{i}"], [f"f{i}"],
                                       kernel_shape=[k, k], pads=[k // 2] * 4)]
            feats.append(f"f{i}")
            refs.append(conv(np.maximum(inp_ref, 0), w.astype(np.float64)))
            inp = f"cat{i}"
            nodes.append(helper.make_node("Concat", list(feats), [inp], axis=1))
            inp_ref = np.concatenate(refs, axis=1)
            cats.append((inp, inp_ref))
        if extra == "late":
            nodes.append(helper.make_node("Concat", [inp, cats[1][0]], ["out"], axis=1))
            ref = np.concatenate([inp_ref, cats[1][1]], axis=1)
        else:
            nodes.append(helper.make_node("Identity", [inp], ["out"]))
            ref = inp_ref
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, list(ref.shape))],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path, inputs = gen.save_case(model, [x], work)
    return path, inputs, ref


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_concat_chain_", CASES, gen.seeded_checks(SEED, make_case, CPUS)))
