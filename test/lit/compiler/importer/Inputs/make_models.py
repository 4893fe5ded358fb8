#!/usr/bin/python3
"""Writes the small ONNX models used by the importer tests into this directory.

    /usr/bin/python3 test/lit/compiler/importer/Inputs/make_models.py [OUT_DIR]

Needs onnx (Debian python3-onnx 1.12) and numpy. Output is deterministic: weights come
from a fixed seed. Valid models pass onnx.checker (full check with shape inference);
files named broken_*.onnx are malformed on purpose. README.md lists every file.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
RNG = np.random.default_rng(20240601)
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def weight(name, shape, scale=0.5):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def const_i64(name, values):
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)


def const_f32(name, values):
    return numpy_helper.from_array(np.asarray(values, dtype=np.float32), name)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, name, inputs, outputs, inits=(), opset=17, extra_opsets=(), check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets, producer_name="kiln-test-models")
    # IR version 7 is readable by every ONNX Runtime and parser we care about and
    # allows opset 9..17.
    m.ir_version = 7 if opset <= 15 else 8
    if check:
        onnx.checker.check_model(m, full_check=True)
    return m


def save(m, filename):
    path = os.path.join(OUT, filename)
    if isinstance(m, (bytes, bytearray)):
        data = bytes(m)
    else:
        data = m.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)
    assert len(data) < 20 * 1024, f"{filename} is {len(data)} bytes"
    return filename


# ---------------------------------------------------------------------------------------
# Valid models
# ---------------------------------------------------------------------------------------


def mlp():
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"]),
        helper.make_node("Add", ["h1", "b1"], ["h2"]),
        helper.make_node("Relu", ["h2"], ["h3"]),
        helper.make_node("MatMul", ["h3", "w2"], ["h4"]),
        helper.make_node("Add", ["h4", "b2"], ["y"]),
    ]
    inits = [weight("w1", [16, 32]), weight("b1", [32]), weight("w2", [32, 8]), weight("b2", [8])]
    return model(nodes, "mlp", [vi("x", F, [1, 16])], [vi("y", F, [1, 8])], inits)


def conv_block():
    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["c", "bn_scale", "bn_bias", "bn_mean", "bn_var"],
                         ["bn"], epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    inits = [
        weight("conv_w", [8, 3, 3, 3]), weight("conv_b", [8]),
        numpy_helper.from_array((1.0 + 0.1 * RNG.standard_normal(8)).astype(np.float32), "bn_scale"),
        weight("bn_bias", [8], 0.1), weight("bn_mean", [8], 0.1),
        numpy_helper.from_array((0.5 + RNG.random(8)).astype(np.float32), "bn_var"),
        weight("fc_w", [4, 8]), weight("fc_b", [4]),
    ]
    return model(nodes, "conv_block", [vi("x", F, [1, 3, 16, 16])], [vi("y", F, [1, 4])], inits)


def dynamic_batch():
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Add", ["h", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Softmax", ["r"], ["y"], axis=-1),
    ]
    inits = [weight("w", [8, 4]), weight("b", [4])]
    return model(nodes, "dynamic_batch", [vi("x", F, ["N", 8])], [vi("y", F, ["N", 4])], inits)


def initializer_as_input():
    # Old exporters list every initializer as a graph input too (IR version < 4 style).
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1),
    ]
    inits = [weight("w", [3, 5]), weight("b", [3])]
    inputs = [vi("x", F, [2, 5]), vi("w", F, [3, 5]), vi("b", F, [3])]
    return model(nodes, "initializer_as_input", inputs, [vi("y", F, [2, 3])], inits, opset=9)


def opset9_clip():
    nodes = [helper.make_node("Clip", ["x"], ["y"], min=0.0, max=6.0)]
    return model(nodes, "opset9_clip", [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], opset=9)


def opset11_squeeze():
    nodes = [
        helper.make_node("Squeeze", ["x"], ["s"], axes=[0, 2]),
        helper.make_node("Unsqueeze", ["s"], ["y"], axes=[1]),
    ]
    return model(nodes, "opset11_squeeze", [vi("x", F, [1, 3, 1, 4])], [vi("y", F, [3, 1, 4])],
                 opset=11)


def opset13_reducesum():
    nodes = [
        helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=0),
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[2], keepdims=1),
        helper.make_node("ReduceMax", ["x"], ["mx"], axes=[1], keepdims=0),
    ]
    return model(nodes, "opset13_reducesum", [vi("x", F, [2, 3, 4])],
                 [vi("s", F, [2]), vi("m", F, [2, 3, 1]), vi("mx", F, [2, 4])],
                 [const_i64("axes", [1, 2])], opset=13)


def transformer_block():
    # LayerNorm -> self-attention-ish (Softmax of x x^T) -> GELU in its erf form.
    nodes = [
        helper.make_node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["ln"], axis=-1,
                         epsilon=1e-5),
        helper.make_node("Transpose", ["ln"], ["lnT"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["ln", "lnT"], ["scores"]),
        helper.make_node("Div", ["scores", "sqrt_d"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1),
        helper.make_node("MatMul", ["attn", "ln"], ["ctx"]),
        # gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2)))
        helper.make_node("Div", ["ctx", "sqrt2"], ["g0"]),
        helper.make_node("Erf", ["g0"], ["g1"]),
        helper.make_node("Add", ["g1", "one"], ["g2"]),
        helper.make_node("Mul", ["ctx", "g2"], ["g3"]),
        helper.make_node("Mul", ["g3", "half"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array((1.0 + 0.1 * RNG.standard_normal(16)).astype(np.float32), "ln_scale"),
        weight("ln_bias", [16], 0.1),
        const_f32("sqrt_d", 4.0), const_f32("sqrt2", np.sqrt(2.0)),
        const_f32("one", 1.0), const_f32("half", 0.5),
    ]
    return model(nodes, "transformer_block", [vi("x", F, [1, 8, 16])], [vi("y", F, [1, 8, 16])],
                 inits)


def shape_ops():
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),                  # [2,12] -> [2,3,4]
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1]),         # [2,4,3]
        helper.make_node("Concat", ["t", "t"], ["c"], axis=2),               # [2,4,6]
        helper.make_node("Slice", ["c", "starts", "ends", "axes", "steps"], ["s"]),  # [2,4,3]
        helper.make_node("Gather", ["s", "idx"], ["g"], axis=1),             # [2,2,3]
        helper.make_node("Split", ["g", "split"], ["y0", "y1"], axis=2),     # [2,2,1], [2,2,2]
        helper.make_node("Shape", ["y1"], ["y1_shape"]),
    ]
    inits = [
        const_i64("shape", [2, 3, 4]),
        const_i64("starts", [1]), const_i64("ends", [6]), const_i64("axes", [2]),
        const_i64("steps", [2]),
        const_i64("idx", [3, 0]),
        const_i64("split", [1, 2]),
    ]
    outputs = [vi("y0", F, [2, 2, 1]), vi("y1", F, [2, 2, 2]), vi("y1_shape", I64, [3])]
    return model(nodes, "shape_ops", [vi("x", F, [2, 12])], outputs, inits, opset=13)


def resize_nearest():
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
    ]
    inits = [const_f32("scales", [1.0, 1.0, 2.0, 2.0])]
    return model(nodes, "resize_nearest", [vi("x", F, [1, 2, 4, 4])], [vi("y", F, [1, 2, 8, 8])],
                 inits, opset=13)


def pad():
    nodes = [
        helper.make_node("Pad", ["x", "pads", "value"], ["p"], mode="constant"),
        helper.make_node("Pad", ["x", "pads"], ["q"], mode="reflect"),
    ]
    inits = [const_i64("pads", [0, 0, 1, 2, 0, 0, 1, 2]), const_f32("value", 0.5)]
    return model(nodes, "pad", [vi("x", F, [1, 2, 4, 4])],
                 [vi("p", F, [1, 2, 6, 8]), vi("q", F, [1, 2, 6, 8])], inits, opset=13)


def where_equal_cast():
    nodes = [
        helper.make_node("Equal", ["a", "b"], ["eq"]),
        helper.make_node("Where", ["eq", "x", "y"], ["w"]),
        helper.make_node("Cast", ["a"], ["af"], to=F),
        helper.make_node("Add", ["w", "af"], ["out"]),
        helper.make_node("Cast", ["eq"], ["eq_i64"], to=I64),
    ]
    inputs = [vi("a", I64, [2, 3]), vi("b", I64, [2, 3]), vi("x", F, [2, 3]), vi("y", F, [2, 3])]
    outputs = [vi("out", F, [2, 3]), vi("eq_i64", I64, [2, 3])]
    return model(nodes, "where_equal_cast", inputs, outputs, opset=13)


def gelu_opset20():
    # Gelu is an ONNX op from opset 20; onnx 1.12 cannot check it, ONNX Runtime runs it.
    nodes = [helper.make_node("Gelu", ["x"], ["y"], approximate="none")]
    return model(nodes, "gelu_opset20", [vi("x", F, [2, 8])], [vi("y", F, [2, 8])], opset=20,
                 check=False)


# ---------------------------------------------------------------------------------------
# Broken models
# ---------------------------------------------------------------------------------------


def broken_unknown_op():
    nodes = [helper.make_node("FooBar", ["x"], ["y"])]
    return model(nodes, "unknown_op", [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], check=False)


def broken_custom_domain():
    nodes = [helper.make_node("FusedThing", ["x"], ["y"], domain="com.example", alpha=1.0)]
    return model(nodes, "custom_domain", [vi("x", F, [2, 3])], [vi("y", F, [2, 3])],
                 extra_opsets=[("com.example", 1)], check=False)


def broken_undefined_input():
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Add", ["r", "nowhere"], ["y"]),
    ]
    return model(nodes, "undefined_input", [vi("x", F, [2, 3])], [vi("y", F, [2, 3])],
                 check=False)


def broken_attr_type():
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
    node.attribute.append(helper.make_attribute("strides", [1.0, 1.0]))  # FLOATS, not INTS
    return model([node], "attr_type", [vi("x", F, [1, 1, 5, 5])], [vi("y", F, [1, 1, 3, 3])],
                 [weight("w", [1, 1, 3, 3])], check=False)


def broken_shape_mismatch():
    nodes = [helper.make_node("Add", ["a", "b"], ["y"])]
    return model(nodes, "shape_mismatch", [vi("a", F, [2, 3]), vi("b", F, [4, 5])],
                 [vi("y", F, [2, 3])], check=False)


def broken_external_data():
    w = TensorProto()
    w.name = "w"
    w.data_type = F
    w.dims.extend([4, 4])
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "broken_external_data.bin"), ("offset", "0"), ("length", "64")):
        entry = w.external_data.add()
        entry.key = k
        entry.value = v
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    return model(nodes, "external_data", [vi("x", F, [1, 4])], [vi("y", F, [1, 4])], [w],
                 check=False)


def broken_opset_too_new():
    # Default-domain opset 99 does not exist (yet); Add itself is ordinary.
    nodes = [helper.make_node("Add", ["a", "b"], ["y"])]
    return model(nodes, "opset_too_new", [vi("a", F, [2]), vi("b", F, [2])], [vi("y", F, [2])],
                 opset=99, check=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    written = {}

    def put(filename, m, note):
        save(m, filename)
        written[filename] = note

    mlp_model = mlp()
    put("mlp.onnx", mlp_model, "MatMul+Add+Relu MLP [1,16]->[1,8], float initializers (opset 17)")
    put("conv_block.onnx", conv_block(),
        "Conv+BatchNormalization+Relu+MaxPool+GlobalAveragePool+Flatten+Gemm, [1,3,16,16]->[1,4]")
    put("dynamic_batch.onnx", dynamic_batch(),
        "MatMul+Add+Relu+Softmax with symbolic batch dim_param \"N\": [N,8]->[N,4]")
    put("initializer_as_input.onnx", initializer_as_input(),
        "Gemm whose initializers are also listed as graph inputs (old exporter style, opset 9)")
    put("opset9_clip.onnx", opset9_clip(), "opset 9 Clip with min/max attributes")
    put("opset11_squeeze.onnx", opset11_squeeze(),
        "opset 11 Squeeze and Unsqueeze with the axes attribute")
    put("opset13_reducesum.onnx", opset13_reducesum(),
        "opset 13 ReduceSum with axes input (keepdims=0), ReduceMean/ReduceMax with axes attribute")
    put("transformer_block.onnx", transformer_block(),
        "LayerNormalization+Transpose+MatMul+Softmax attention and erf-form GELU (Div/Erf/Add/Mul)")
    put("shape_ops.onnx", shape_ops(),
        "Reshape/Transpose/Concat/Slice(step 2)/Gather/Split/Shape chain (opset 13)")
    put("resize_nearest.onnx", resize_nearest(),
        "Resize nearest x2 with scales input, asymmetric/floor (opset 13)")
    put("pad.onnx", pad(), "Pad constant (with value input) and reflect modes (opset 13)")
    put("where_equal_cast.onnx", where_equal_cast(),
        "Equal on int64 inputs, Where, Cast int64->float and bool->int64 (opset 13)")
    put("gelu_opset20.onnx", gelu_opset20(),
        "Gelu op from opset 20 (approximate=none); newer than onnx 1.12's checker")

    mlp_bytes = mlp_model.SerializeToString()
    put("broken_truncated.onnx", mlp_bytes[: len(mlp_bytes) // 2],
        "broken: mlp.onnx cut in half (truncated protobuf)")
    put("broken_random_bytes.onnx", np.random.default_rng(7).bytes(512),
        "broken: 512 random bytes")
    put("broken_empty.onnx", b"", "broken: empty file")
    put("broken_unknown_op.onnx", broken_unknown_op(), "broken: unknown op type FooBar")
    put("broken_custom_domain.onnx", broken_custom_domain(),
        "broken: op FusedThing from custom domain com.example")
    put("broken_undefined_input.onnx", broken_undefined_input(),
        "broken: Add reads tensor 'nowhere', which nothing defines")
    put("broken_attr_type.onnx", broken_attr_type(),
        "broken: Conv strides attribute has type FLOATS instead of INTS")
    put("broken_shape_mismatch.onnx", broken_shape_mismatch(),
        "broken: Add of [2,3] and [4,5] (not broadcastable)")
    put("broken_external_data.onnx", broken_external_data(),
        "broken: initializer stored as external data in a missing broken_external_data.bin")
    put("broken_opset_too_new.onnx", broken_opset_too_new(),
        "broken: default-domain opset 99 (too new)")

    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("# Importer test inputs\n\n")
        f.write("Generated by `make_models.py` (run it with /usr/bin/python3); do not edit "
                "the .onnx files by hand.\n\n")
        for name, note in written.items():
            f.write(f"- `{name}`: {note}\n")
    for name in written:
        print(name)


if __name__ == "__main__":
    main()
