"""Writes Conv(conv0) + Relu + Conv(conv1), an input and a float64 reference.

    /usr/bin/python3 make_two_convs.py OUT.onnx INPUT.npy REFERENCE.npy
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
w0 = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
w1 = rng.standard_normal((4, 8, 3, 3)).astype(np.float32) * 0.3
x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)


def conv(x, w):
    """Stride 1, pads 1, float64."""
    n, c, h, wd = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            y += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return y


graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w0"], ["a"], name="conv0", pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["a"], ["r"], name="relu0"),
     helper.make_node("Conv", ["r", "w1"], ["y"], name="conv1", pads=[1, 1, 1, 1])],
    "two_convs",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 12, 12])],
    [numpy_helper.from_array(w0, "w0"), numpy_helper.from_array(w1, "w1")],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          sys.argv[1])
np.save(sys.argv[2], x)
np.save(sys.argv[3], conv(np.maximum(conv(x, w0), 0), w1.astype(np.float64)))
