"""Writes two Loop models (opset 16) into DIR with their inputs:

    while.onnx:  v [3] doubles and adds the iteration number while
                 sum(v) < limit (an input) and at most M = 10 times;
                 outputs v and the iteration count as the loop carries it.
    scan.onnx:   M = 4 (a constant), no cond: y' = y + 1 and a scan output of
                 y * i per step ([4, 2]).

    /usr/bin/python3 make_loop.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def save(graph, name):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]),
              os.path.join(out, name))


body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Mul", ["v_in", "two"], ["v2"]),
     helper.make_node("Add", ["v2", "fi"], ["v_out"]),
     helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
     helper.make_node("Less", ["s", "limit"], ["c_out"]),
     helper.make_node("Add", ["n_in", "one"], ["n_out"])],
    "body",
    [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c_in", B, []),
     helper.make_tensor_value_info("v_in", F, [3]), helper.make_tensor_value_info("n_in", I64, [])],
    [helper.make_tensor_value_info("c_out", B, []), helper.make_tensor_value_info("v_out", F, [3]),
     helper.make_tensor_value_info("n_out", I64, [])],
    [helper.make_tensor("two", F, [], [2.0]), helper.make_tensor("one", I64, [], [1])])
save(helper.make_graph(
    [helper.make_node("Loop", ["M", "", "v0", "n0"], ["v", "n"], name="loop", body=body)],
    "while",
    [helper.make_tensor_value_info("v0", F, [3]), helper.make_tensor_value_info("limit", F, [])],
    [helper.make_tensor_value_info("v", F, [3]), helper.make_tensor_value_info("n", I64, [])],
    [helper.make_tensor("M", I64, [], [10]), helper.make_tensor("n0", I64, [], [0])]),
    "while.onnx")

body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Add", ["y_in", "onef"], ["y_out"]),
     helper.make_node("Mul", ["y_in", "fi"], ["scan"]),
     helper.make_node("Identity", ["c_in"], ["c_out"])],
    "body",
    [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c_in", B, []),
     helper.make_tensor_value_info("y_in", F, [2])],
    [helper.make_tensor_value_info("c_out", B, []), helper.make_tensor_value_info("y_out", F, [2]),
     helper.make_tensor_value_info("scan", F, [2])],
    [helper.make_tensor("onef", F, [], [1.0])])
save(helper.make_graph(
    [helper.make_node("Loop", ["M", "", "y0"], ["y", "ys"], name="loop", body=body)],
    "scan",
    [helper.make_tensor_value_info("y0", F, [2])],
    [helper.make_tensor_value_info("y", F, [2]), helper.make_tensor_value_info("ys", F, [4, 2])],
    [helper.make_tensor("M", I64, [], [4])]),
    "scan.onnx")

rng = np.random.default_rng(0)
np.save(os.path.join(out, "v0.npy"), rng.uniform(0, 1, 3).astype(np.float32))
np.save(os.path.join(out, "limit.npy"), np.array(40.0, np.float32))
np.save(os.path.join(out, "y0.npy"), rng.standard_normal(2).astype(np.float32))
