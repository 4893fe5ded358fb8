#!/usr/bin/python3
"""Writes the benchmark models: a square MatMul and a small 3x3 conv stack.

Usage: make_models.py OUTDIR [--size N]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def matmul_model(n):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(
        rng.standard_normal((n, n)).astype(np.float32), "w")
    node = helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node], "matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
        [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_model(c=64, hw=56, layers=3):
    """`layers` 3x3 convs (pad 1) with bias and Relu, batch 1."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    prev = "x"
    for i in range(layers):
        w = rng.standard_normal((c, c, 3, 3)).astype(np.float32) * 0.05
        b = rng.standard_normal((c,)).astype(np.float32) * 0.1
        inits += [numpy_helper.from_array(w, f"w{i}"),
                  numpy_helper.from_array(b, f"b{i}")]
        nodes.append(helper.make_node("Conv", [prev, f"w{i}", f"b{i}"],
                                      [f"c{i}"], pads=[1, 1, 1, 1],
                                      kernel_shape=[3, 3]))
        out = "y" if i == layers - 1 else f"r{i}"
        nodes.append(helper.make_node("Relu", [f"c{i}"], [out]))
        prev = out
    graph = helper.make_graph(
        nodes, "convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, hw, hw])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("outdir")
    p.add_argument("--size", type=int, default=1024)
    args = p.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    n = args.size
    onnx.save(matmul_model(n), os.path.join(args.outdir, f"matmul{n}.onnx"))
    onnx.save(conv_model(), os.path.join(args.outdir, "conv3x3_64.onnx"))


if __name__ == "__main__":
    main()
