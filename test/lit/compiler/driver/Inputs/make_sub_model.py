"""Writes DIR/sub.onnx (y = a - b, float32 [2, 3]) and DIR/a.npy, DIR/b.npy,
DIR/ref.npy (a - b computed by NumPy) for the CLI tests."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
info = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
graph = helper.make_graph([helper.make_node("Sub", ["a", "b"], ["y"])], "sub",
                          [info("a"), info("b")], [info("y")])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "sub.onnx"))
a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.full((2, 3), 10, dtype=np.float32)
np.save(os.path.join(out, "a.npy"), a)
np.save(os.path.join(out, "b.npy"), b)
np.save(os.path.join(out, "ref.npy"), a - b)
