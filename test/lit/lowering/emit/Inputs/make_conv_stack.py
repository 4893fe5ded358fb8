"""Writes a small convolution stack, an input and its float64 reference.

    /usr/bin/python3 make_conv_stack.py OUT.onnx INPUT.npy REFERENCE.npy

y = sigmoid(conv1x1(relu(conv3x3(x) + b1)) + b2) * s, x: 1x8x48x48. The
3x3 convolution is large enough to run on the thread pool, so the library
has parallel loop bodies besides the entry function and the ABI wrapper.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
C, K, H, W = 8, 16, 48, 48
x = rng.standard_normal((1, C, H, W)).astype(np.float32)
w1 = (rng.standard_normal((K, C, 3, 3)) * 0.2).astype(np.float32)
b1 = rng.standard_normal(K).astype(np.float32)
w2 = (rng.standard_normal((C, K, 1, 1)) * 0.2).astype(np.float32)
b2 = rng.standard_normal(C).astype(np.float32)
s = rng.standard_normal((1, C, 1, 1)).astype(np.float32)

nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"]),
    helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"]),
    helper.make_node("Sigmoid", ["c2"], ["g"]),
    helper.make_node("Mul", ["g", "s"], ["y"]),
]
graph = helper.make_graph(
    nodes, "conv_stack",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, C, H, W])],
    [numpy_helper.from_array(a, n) for a, n in
     [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (s, "s")]],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          sys.argv[1])

xd = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
c1 = np.zeros((K, H, W))
for i in range(3):
    for j in range(3):
        c1 += np.einsum("kc,chw->khw", w1[:, :, i, j].astype(np.float64),
                        xd[0, :, i:i + H, j:j + W])
r1 = np.maximum(c1 + b1[:, None, None], 0.0)
c2 = np.einsum("ck,khw->chw", w2[:, :, 0, 0].astype(np.float64), r1)
c2 += b2[:, None, None]
y = (1.0 / (1.0 + np.exp(-c2)) * s[0].astype(np.float64))[None]
np.save(sys.argv[2], x)
np.save(sys.argv[3], y)
