"""Writes DIR/ct.onnx: ConvTranspose of X [1, 1, 3, 3] by W [1, 2, 3, 3] (graph
inputs), strides 3 x 2, output_padding 1 (as the ONNX node test
convtranspose_pad), with DIR/x.npy, DIR/w.npy and a float64 reference DIR/ref.npy."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
node = helper.make_node("ConvTranspose", ["X", "W"], ["Y"], strides=[3, 2],
                        output_padding=[1, 1])
graph = helper.make_graph(
    [node], "ct",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 3, 3]),
     helper.make_tensor_value_info("W", TensorProto.FLOAT, [1, 2, 3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 10, 8])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, os.path.join(out, "ct.onnx"))
rng = np.random.default_rng(5)
x = rng.standard_normal((1, 1, 3, 3)).astype(np.float32)
w = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "w.npy"), w)
# y[o, 3 i + a, 2 j + b] += x[i, j] w[o, a, b]; rows and columns past the
# last tap (output_padding) stay zero.
y = np.zeros((1, 2, 10, 8))
for o in range(2):
    for i in range(3):
        for j in range(3):
            y[0, o, 3 * i:3 * i + 3, 2 * j:2 * j + 3] += (
                float(x[0, 0, i, j]) * w[0, o].astype(np.float64))
np.save(os.path.join(out, "ref.npy"), y.astype(np.float32))
