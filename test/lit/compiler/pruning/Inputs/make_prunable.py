"""Writes DIR/model.onnx: Conv (W [16, 8, 3, 3]) -> Flatten -> MatMul
(B [1152, 64]) -> Gemm (transB, B [10, 64]) with seeded weights, the inputs
x.npy, and a small Conv (W [4, 8, 1, 1], 32 elements) feeding nothing but a
second output, for --min-elements."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
weights = {
    "wc": rng.standard_normal((16, 8, 3, 3)).astype(np.float32),
    "wm": rng.standard_normal((1152, 64)).astype(np.float32) * 0.05,
    "wg": rng.standard_normal((10, 64)).astype(np.float32),
    "ws": rng.standard_normal((4, 8, 1, 1)).astype(np.float32),
}
nodes = [
    helper.make_node("Conv", ["x", "wc"], ["c"], name="conv", pads=[1, 1, 1, 1],
                     strides=[2, 2]),
    helper.make_node("Flatten", ["c"], ["f"], name="flat"),
    helper.make_node("MatMul", ["f", "wm"], ["m"], name="mm"),
    helper.make_node("Gemm", ["m", "wg"], ["y"], name="fc", transB=1),
    helper.make_node("Conv", ["x", "ws"], ["s"], name="small"),
]
graph = helper.make_graph(
    nodes, "prunable",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 24])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10]),
     helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 4, 12, 24])],
    [numpy_helper.from_array(v, k) for k, v in weights.items()])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "model.onnx"))
np.save(os.path.join(out, "x.npy"), rng.standard_normal((1, 8, 12, 24)).astype(np.float32))
