"""Writes the GPU target's test models into OUT_DIR:

    /usr/bin/python3 make_gpu_models.py OUT_DIR

mm_M_K_N.onnx: c = a @ b with both operands inputs, for (M, K, N) in SHAPES;
dense.onnx: y = relu(x @ w + bias), x: 8x64 input, w and bias initializers;
x.npy: an input for dense.onnx;
conv.onnx: a 3x3 convolution (16 -> 32 channels, 16x16, pads 1, stride 1) with
bias, cx.npy its input.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPES = [(128, 64, 96), (100, 60, 90)]
out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(graph, name):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, os.path.join(out, name))


for m, k, n in SHAPES:
    save(helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"], name="mm")], "mm",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, n])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [m, n])]),
        f"mm_{m}_{k}_{n}.onnx")

rng = np.random.default_rng(0)
w = rng.standard_normal((64, 32)).astype(np.float32)
bias = rng.standard_normal(32).astype(np.float32)
save(helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
     helper.make_node("Add", ["h", "bias"], ["hb"], name="bias_add"),
     helper.make_node("Relu", ["hb"], ["y"], name="relu")], "dense",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 32])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "bias")]),
    "dense.onnx")
np.save(os.path.join(out, "x.npy"), rng.standard_normal((8, 64)).astype(np.float32))
cw = (rng.standard_normal((32, 16, 3, 3)) * 0.1).astype(np.float32)
cb = rng.standard_normal(32).astype(np.float32)
save(helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", pads=[1, 1, 1, 1])], "conv",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 16, 16])],
    [numpy_helper.from_array(cw, "w"), numpy_helper.from_array(cb, "b")]),
    "conv.onnx")
np.save(os.path.join(out, "cx.npy"), rng.standard_normal((1, 16, 16, 16)).astype(np.float32))
