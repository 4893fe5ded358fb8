"""Writes DIR/scan.onnx, a Scan (opset 16) with two states and two scan
inputs, and DIR/x.npy, DIR/u.npy, DIR/s0.npy, DIR/p0.npy, its inputs:

    state s [4]:    s' = s + x_t * u_t        (x scanned along axis 1 of [4, T],
    state p [4]:    p' = p * 0.5 + x_t         u along axis 0 of [T, 4], reversed)
    outputs:        s_final, p_final, ys [4, T] (s' of each step along axis 1,
                                                 filled from the end)

    /usr/bin/python3 make_scan.py DIR [T]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
T = int(sys.argv[2]) if len(sys.argv) > 2 else 5
os.makedirs(out, exist_ok=True)
f = TensorProto.FLOAT
body = helper.make_graph(
    [helper.make_node("Mul", ["x_t", "u_t"], ["xu"]),
     helper.make_node("Add", ["s_in", "xu"], ["s_out"]),
     helper.make_node("Mul", ["p_in", "half"], ["ph"]),
     helper.make_node("Add", ["ph", "x_t"], ["p_out"]),
     helper.make_node("Identity", ["s_out"], ["y_t"])],
    "body",
    [helper.make_tensor_value_info(n, f, [4]) for n in ("s_in", "p_in", "x_t", "u_t")],
    [helper.make_tensor_value_info(n, f, [4]) for n in ("s_out", "p_out", "y_t")],
    [helper.make_tensor("half", f, [], [0.5])])
scan = helper.make_node(
    "Scan", ["s0", "p0", "x", "u"], ["s_final", "p_final", "ys"], name="scan", body=body,
    num_scan_inputs=2, scan_input_axes=[1, 0], scan_input_directions=[0, 1],
    scan_output_axes=[1], scan_output_directions=[1])
graph = helper.make_graph(
    [scan], "scan",
    [helper.make_tensor_value_info("s0", f, [4]), helper.make_tensor_value_info("p0", f, [4]),
     helper.make_tensor_value_info("x", f, [4, T]), helper.make_tensor_value_info("u", f, [T, 4])],
    [helper.make_tensor_value_info("s_final", f, [4]),
     helper.make_tensor_value_info("p_final", f, [4]),
     helper.make_tensor_value_info("ys", f, [4, T])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]),
          os.path.join(out, "scan.onnx"))
rng = np.random.default_rng(0)
for name, shape in (("s0", [4]), ("p0", [4]), ("x", [4, T]), ("u", [T, 4])):
    np.save(os.path.join(out, name + ".npy"), rng.standard_normal(shape).astype(np.float32))
