"""Writes a model with one op of each CPU task kind the tuner knows (conv,
depthwise conv, contraction), an input and a float64 reference.

    /usr/bin/python3 make_tune_model.py OUT.onnx INPUT.npy REFERENCE.npy [SIZE]

SIZE (default 16) is the input's height and width: other sizes give the
same ops at other shapes.

conv3 and conv4 have the same signature: one task, found twice.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

size = int(sys.argv[4]) if len(sys.argv) > 4 else 16
rng = np.random.default_rng(11)
w1 = rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2
dw = rng.standard_normal((16, 1, 3, 3)).astype(np.float32) * 0.3
w2 = rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2
w3 = rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2
w4 = rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2
half = (size - 1) // 2 + 1
fc = rng.standard_normal((16 * half * half, 24)).astype(np.float32) * 0.05
x = rng.standard_normal((1, 8, size, size)).astype(np.float32)


def conv(x, w, stride=1, groups=1):
    """Pads 1, float64."""
    n, c, h, wd = x.shape
    f, cg = w.shape[0], w.shape[1]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (h - 1) // stride + 1, (wd - 1) // stride + 1
    y = np.zeros((n, f, oh, ow))
    fg = f // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(3):
            for j in range(3):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j].astype(np.float64))
    return y


graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w1"], ["a"], name="conv1", pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["a"], ["r"], name="relu1"),
     helper.make_node("Conv", ["r", "dw"], ["d"], name="dw", pads=[1, 1, 1, 1], group=16),
     helper.make_node("Conv", ["d", "w3"], ["e"], name="conv3", pads=[1, 1, 1, 1]),
     helper.make_node("Conv", ["e", "w4"], ["e4"], name="conv4", pads=[1, 1, 1, 1]),
     helper.make_node("Conv", ["e4", "w2"], ["c"], name="conv2", pads=[1, 1, 1, 1],
                      strides=[2, 2]),
     helper.make_node("Flatten", ["c"], ["f"], name="flatten"),
     helper.make_node("MatMul", ["f", "fc"], ["y"], name="fc")],
    "tune_model",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, size, size])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 24])],
    [numpy_helper.from_array(a, n) for a, n in
     [(w1, "w1"), (dw, "dw"), (w2, "w2"), (w3, "w3"), (w4, "w4"), (fc, "fc")]],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          sys.argv[1])
np.save(sys.argv[2], x)
a = np.maximum(conv(x, w1), 0)
e = conv(conv(conv(a, dw, groups=16), w3), w4)
np.save(sys.argv[3], conv(e, w2, stride=2).reshape(1, -1) @ fc.astype(np.float64))
