"""Writes DIR/mm.onnx, one MatMul (x: 300x1024 times a constant 1024x200)
whose reduction is long enough to run in K blocks (two row blocks share
each B block), and DIR/x.npy."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
w = rng.standard_normal((1024, 200)).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "mm",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [300, 1024])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [300, 200])],
    [numpy_helper.from_array(w, "w")])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "mm.onnx"))
np.save(os.path.join(out, "x.npy"),
        rng.standard_normal((300, 1024)).astype(np.float32))
