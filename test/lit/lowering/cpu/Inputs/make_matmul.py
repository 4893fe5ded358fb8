"""Writes y = x @ w with a constant w, an input and its float64 reference.

    /usr/bin/python3 make_matmul.py OUT.onnx INPUT.npy REFERENCE.npy

x: 40x256, w: 256x1024, so B's rows are 4 KiB apart, the M extent is not a
multiple of any register tile, and the contraction is large enough to run
on the thread pool.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)
M, K, N = 40, 256, 1024
x = rng.standard_normal((M, K)).astype(np.float32)
w = rng.standard_normal((K, N)).astype(np.float32)

graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])],
    [numpy_helper.from_array(w, "w")],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          sys.argv[1])
np.save(sys.argv[2], x)
np.save(sys.argv[3], x.astype(np.float64) @ w.astype(np.float64))
