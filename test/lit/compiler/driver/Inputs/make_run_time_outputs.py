"""Writes models whose outputs' extents the input dims do not give, for the
CLI tests, and inputs for them:
- DIR/concat_slice.onnx: y = Concat(x, x) along dim 0 (2n rows), z = x[1:e]
  (e read from an input), x float32 [n, 2]; DIR/x.npy (3 rows), DIR/e.npy (2).
- DIR/batch.onnx: a conv net on x [N, 3, 8, 8]: probs (Softmax of a Gemm,
  declared [M, 10]: M is N) and folded (a Reshape to [-1, 4, 128]: N / 2
  rows, declared [K, 4, 128])."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
vi = helper.make_tensor_value_info

graph = helper.make_graph(
    [helper.make_node("Concat", ["x", "x"], ["y"], axis=0),
     helper.make_node("Slice", ["x", "one", "e", "zero"], ["z"])],
    "concat_slice", [vi("x", T.FLOAT, ["n", 2]), vi("e", T.INT64, [1])],
    [vi("y", T.FLOAT, ["y0", "y1"]), vi("z", T.FLOAT, ["z0", "z1"])],
    initializer=[nh.from_array(np.array([1], np.int64), "one"),
                 nh.from_array(np.array([0], np.int64), "zero")])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "concat_slice.onnx"))
np.save(os.path.join(out, "x.npy"), np.arange(6, dtype=np.float32).reshape(3, 2))
np.save(os.path.join(out, "e.npy"), np.array([2], np.int64))

rng = np.random.default_rng(0)
weights = [nh.from_array(rng.random((4, 3, 3, 3), np.float32), "w"),
           nh.from_array(rng.random((10, 4), np.float32), "g"),
           nh.from_array(rng.random(10, np.float32), "b"),
           nh.from_array(np.array([-1, 4, 128], np.int64), "shape")]
graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["c"], ["r"]),
     helper.make_node("GlobalAveragePool", ["r"], ["p"]),
     helper.make_node("Flatten", ["p"], ["f"]),
     helper.make_node("Gemm", ["f", "g", "b"], ["logits"], transB=1),
     helper.make_node("Softmax", ["logits"], ["probs"]),
     helper.make_node("Reshape", ["r", "shape"], ["folded"])],
    "batch", [vi("x", T.FLOAT, ["N", 3, 8, 8])],
    [vi("probs", T.FLOAT, ["M", 10]), vi("folded", T.FLOAT, ["K", 4, 128])],
    initializer=weights)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "batch.onnx"))
