"""Writes Conv (auto_pad SAME_UPPER) + Relu whose input has symbolic height and
width: its padding depends on the image size.

    /usr/bin/python3 make_dynamic_conv.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

w = np.ones((4, 3, 3, 3), dtype=np.float32)
graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w"], ["c"], name="conv0",
                      auto_pad="SAME_UPPER", strides=[2, 2]),
     helper.make_node("Relu", ["c"], ["y"], name="relu0")],
    "dynamic_conv",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, "h", "w"])],
    [numpy_helper.from_array(w, "w")],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          sys.argv[1])
