"""Writes a small MatMul model: y = x @ w, x: 4x64 input, w: 64x32 initializer.

    /usr/bin/python3 make_matmul.py OUT.onnx

Big enough for the vectorizers to use full vector registers on every target.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

w = np.linspace(-1.0, 1.0, 64 * 32, dtype=np.float32).reshape(64, 32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"])],
    "matmul",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 32])],
    [numpy_helper.from_array(w, "w")],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
