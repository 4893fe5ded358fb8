#!/usr/bin/python3
"""Writes legacy-opset models for the importer's upgrade tests into extra/.

    /usr/bin/python3 test/lit/compiler/importer/Inputs/make_extra_models.py

Needs onnx 1.12 and numpy (Debian's /usr/bin/python3). Valid models pass
onnx.checker; broken_* ones are rejected by the importer on purpose.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "extra")
F = TensorProto.FLOAT


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def save(nodes, name, inputs, outputs, inits=(), opset=9, check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="kiln-extra-models")
    m.ir_version = 7
    if check:
        onnx.checker.check_model(m, full_check=True)
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(OUT, exist_ok=True)
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    # Opset 9: Upsample, attribute-form Slice and Pad, Dropout, coerced Softmax.
    save([
        helper.make_node("Upsample", ["x", "scales"], ["u"], mode="nearest"),
        helper.make_node("Slice", ["u"], ["s"], starts=[1], ends=[7], axes=[3]),
        helper.make_node("Pad", ["s"], ["p"], pads=[0, 0, 0, 1, 0, 0, 0, 1], value=0.5),
        helper.make_node("Dropout", ["p"], ["d", "mask"], ratio=0.1),
        helper.make_node("Softmax", ["d"], ["y"], axis=1),
    ], "opset9_legacy", [vi("x", [1, 2, 3, 4])], [vi("y", [1, 2, 6, 8])], [scales])
    # Opset 10: Resize with (X, scales) and asymmetric coordinates.
    save([helper.make_node("Resize", ["x", "scales"], ["y"], mode="linear")],
         "opset10_resize", [vi("x", [1, 2, 3, 4])], [vi("y", [1, 2, 6, 8])], [scales],
         opset=10)
    # MaxPool's Indices output feeding a graph output is not supported.
    save([helper.make_node("MaxPool", ["x"], ["y", "idx"], kernel_shape=[2, 2])],
         "broken_maxpool_indices", [vi("x", [1, 1, 4, 4])],
         [vi("y", [1, 1, 3, 3]), vi("idx", [1, 1, 3, 3], TensorProto.INT64)], opset=12)
    # Ops imported as their ONNX function bodies: a fixed body
    # (MeanVarianceNormalization) and one built from the input types (CastLike).
    save([helper.make_node("MeanVarianceNormalization", ["x"], ["m"], axes=[0, 2, 3]),
          helper.make_node("CastLike", ["m", "like"], ["y"])],
         "function_ops", [vi("x", [2, 3, 4, 4]), vi("like", [1], TensorProto.FLOAT16)],
         [vi("y", [2, 3, 4, 4], TensorProto.FLOAT16)], opset=15)
    # Inference Dropout whose mask is read: the identity and an all-true mask.
    # Deprecated Scatter: ScatterElements.
    save([helper.make_node("Dropout", ["x"], ["d", "mask"]),
          helper.make_node("Scatter", ["d", "idx", "upd"], ["y"], axis=1)],
         "dropout_mask_scatter",
         [vi("x", [2, 3]), vi("idx", [2, 1], TensorProto.INT64), vi("upd", [2, 1])],
         [vi("y", [2, 3]), vi("mask", [2, 3], TensorProto.BOOL)], opset=10, check=False)
    # A convolution over an image of symbolic size: compiles as shipped.
    w = numpy_helper.from_array(np.ones((2, 1, 3, 3), np.float32), "w")
    save([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
         "conv_dynamic_hw", [vi("x", ["N", 1, "H", "W"])], [vi("y", ["N", 2, "H", "W"])],
         [w], opset=13)
    # Then a ceil_mode MaxPool, whose end padding depends on the image size:
    # needs --input-shape.
    save([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
          helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                           ceil_mode=1)],
         "pool_ceil_dynamic_hw", [vi("x", ["N", 1, "H", "W"])],
         [vi("y", ["N", 2, "OH", "OW"])], [w], opset=13)
    # If whose branches read an outer value and yield different shapes.
    then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                               [vi("t", [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["e"], keepdims=1, axes=[1])], "else", [],
        [vi("e", [2, 1])])
    save([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
         "if_branches", [vi("c", [], TensorProto.BOOL), vi("x", [2, 3])],
         [vi("y", [2, "W"])], opset=11, check=False)
    # Training-mode BatchNormalization: batch statistics and running ones.
    params = [numpy_helper.from_array(np.full((2,), v, np.float32), n)
              for n, v in (("s", 1.5), ("b", 0.5), ("m", 0.1), ("v", 2.0))]
    save([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                           ["y", "rm", "rv"], training_mode=1, momentum=0.8)],
         "batchnorm_training", [vi("x", [3, 2, 4])],
         [vi("y", [3, 2, 4]), vi("rm", [2]), vi("rv", [2])], params, opset=15)


if __name__ == "__main__":
    main()
