#!/usr/bin/python3
"""Malformed ONNX models through `kiln compile`: each must be refused cleanly.

    /usr/bin/python3 test/e2e/malformed/run_malformed_models.py --kiln build/bin/kiln
        [--filter REGEX] [--keep] [--timeout 120]

Builds one model per defect class in a temporary directory (truncated protobuf,
wrong element types, cycles, dangling inputs, rank and broadcast mismatches,
unknown ops, element counts beyond 64 bits, missing or short initializer data,
external data leaving the model's folder or beyond its file) and compiles each.
Every case must exit with status 1 and write exactly one line to stderr, with no
signal, stack dump or assertion, and that line must name what is wrong (a
distinctive substring per case: the node, tensor or op). Prints one line per
case and `N passed, M failed`; exits non-zero on any failure.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
F = TensorProto.FLOAT
BIG = 1 << 40  # [BIG, BIG] has 2^80 elements

# Text that only a crash or an internal failure prints.
CRASH_MARKERS = ("Stack dump", "PLEASE submit", "Assertion",
                 "LLVM ERROR", "Segmentation", "terminate called", "Aborted",
                 "UNREACHABLE")


def model(nodes, inputs, outputs, inits=(), opsets=None, name="malformed"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    opsets = opsets or [helper.make_opsetid("", OPSET)]
    m = helper.make_model(graph, opset_imports=opsets, producer_name="malformed")
    m.ir_version = 8
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def weights(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def relu_model():
    """A valid two-node model, the base of the structural defects."""
    w = weights("w", (4, 4))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
             helper.make_node("Relu", ["h"], ["y"], name="act")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])], [w])


def external(location, offset=None, length=None):
    """Initializer 'w' of 16 floats whose data lives in `location`."""
    t = TensorProto()
    t.name = "w"
    t.data_type = F
    t.dims.extend([4, 4])
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            e = t.external_data.add()
            e.key, e.value = key, str(value)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 4])], [t])


# --- the cases: name -> function(dir) returning (model path, expected substring) ---


def write(d, m, name="model.onnx"):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(m.SerializeToString() if isinstance(m, onnx.ModelProto) else m)
    return path


def truncated_protobuf(d):
    data = relu_model().SerializeToString()
    # Cut inside the graph's bytes; make sure protobuf itself rejects the result.
    cut = data[:len(data) * 2 // 3]
    try:
        onnx.ModelProto().ParseFromString(cut)
    except DecodeError:
        return write(d, cut), "protobuf parse failed"
    raise RuntimeError("the truncated model still parses; pick another cut")


def empty_file(d):
    return write(d, b""), "empty file"


def int64_into_float_op(d):
    # Sqrt is defined for floats only; the input is declared int64.
    nodes = [helper.make_node("Sqrt", ["x"], ["y"], name="root")]
    m = model(nodes, [vi("x", [2, 3], TensorProto.INT64)],
              [vi("y", [2, 3], TensorProto.INT64)])
    return write(d, m), "'root'"


def mixed_types_add(d):
    nodes = [helper.make_node("Add", ["x", "n"], ["y"], name="add_mixed")]
    m = model(nodes, [vi("x", [2, 3]), vi("n", [2, 3], TensorProto.INT64)], [vi("y", [2, 3])])
    return write(d, m), "'add_mixed'"


def bad_data_type_code(d):
    m = relu_model()
    m.graph.initializer[0].data_type = 99
    return write(d, m), "initializer 'w': unsupported element type type code 99"


def bad_input_type_code(d):
    m = relu_model()
    m.graph.input[0].type.tensor_type.elem_type = 77
    return write(d, m), "graph input 'x': unsupported element type type code 77"


def cycle(d):
    # a = Add(x, b); b = Relu(a): each node waits for the other.
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
             helper.make_node("Relu", ["a"], ["b"], name="second")]
    m = model(nodes, [vi("x", [2, 3])], [vi("b", [2, 3])])
    return write(d, m), "input 'b' is used before the node that produces it"


def dangling_input(d):
    nodes = [helper.make_node("Add", ["x", "ghost"], ["y"], name="add_ghost")]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])])
    return write(d, m), "input 'ghost' is not produced"


def dangling_output(d):
    m = relu_model()
    m.graph.output[0].name = "nowhere"
    return write(d, m), "graph output 'nowhere'"


def matmul_rank_mismatch(d):
    w = weights("w", (5, 7))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm_bad")]
    m = model(nodes, [vi("x", [2, 3, 4])], [vi("y", None)], [w])
    return write(d, m), "'mm_bad'"


def matmul_scalar(d):
    # MatMul needs operands of rank 1 or more.
    w = numpy_helper.from_array(np.array(2.0, dtype=np.float32), "s")
    nodes = [helper.make_node("MatMul", ["x", "s"], ["y"], name="mm_scalar")]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", None)], [w])
    return write(d, m), "'mm_scalar'"


def add_not_broadcastable(d):
    nodes = [helper.make_node("Add", ["x", "z"], ["y"], name="add_bcast")]
    m = model(nodes, [vi("x", [2, 3]), vi("z", [4, 3])], [vi("y", None)])
    return write(d, m), "'add_bcast'"


def declared_output_mismatch(d):
    m = relu_model()
    m.graph.output[0].type.tensor_type.shape.dim[1].dim_value = 5
    return write(d, m), "'y' is declared as"


def unknown_op_default_domain(d):
    nodes = [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="frob")]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])])
    return write(d, m), "unsupported op 'FrobnicateTensor'"


def unknown_op_custom_domain(d):
    nodes = [helper.make_node("FastGelu", ["x"], ["y"], name="custom",
                              domain="com.example")]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])],
              opsets=[helper.make_opsetid("", OPSET),
                      helper.make_opsetid("com.example", 1)])
    return write(d, m), "unsupported op 'FastGelu' (domain 'com.example')"


def huge_input(d):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="act")]
    m = model(nodes, [vi("x", [BIG, BIG])], [vi("y", [BIG, BIG])])
    return write(d, m), "graph input 'x': shape [1099511627776,1099511627776] has too many"


def huge_initializer(d):
    t = TensorProto()
    t.name = "w"
    t.data_type = F
    t.dims.extend([BIG, BIG])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add_huge")]
    m = model(nodes, [vi("x", [1, 1])], [vi("y", None)], [t])
    return write(d, m), "initializer 'w': shape [1099511627776,1099511627776]"


def huge_constant_of_shape(d):
    # A constant shape whose product overflows: the op's result type is huge.
    shape = numpy_helper.from_array(np.array([BIG, BIG], dtype=np.int64), "shape")
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["c"], name="fill"),
             helper.make_node("Add", ["x", "c"], ["y"], name="add_fill")]
    m = model(nodes, [vi("x", [1, 1])], [vi("y", None)], [shape])
    return write(d, m), "node 'fill' (ConstantOfShape, opset 17): output 'c'"


def huge_expand(d):
    shape = numpy_helper.from_array(np.array([BIG, 1, BIG], dtype=np.int64), "shape")
    nodes = [helper.make_node("Expand", ["x", "shape"], ["y"], name="expand_huge")]
    m = model(nodes, [vi("x", [1, 4, 1])], [vi("y", None)], [shape])
    return write(d, m), "node 'expand_huge' (Expand, opset 17): output 'y'"


def huge_declared_type(d):
    # Each side fits; merging the inferred [2^40, ?] with the declared
    # [?, 2^40] does not.
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="act")]
    m = model(nodes, [vi("x", [BIG, "n"])], [vi("y", ["m", BIG])])
    return write(d, m), "node 'act' (Relu, opset 17): output 'y'"


def huge_reshape(d):
    shape = numpy_helper.from_array(np.array([BIG, BIG], dtype=np.int64), "shape")
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape_huge")]
    m = model(nodes, [vi("x", [4, 4])], [vi("y", None)], [shape])
    return write(d, m), "'reshape_huge'"


def initializer_without_data(d):
    # Listed as a graph input too (pre-IR-4 style), but holds no values.
    t = TensorProto()
    t.name = "w"
    t.data_type = F
    t.dims.extend([4, 4])
    m = relu_model()
    del m.graph.initializer[:]
    m.graph.initializer.append(t)
    m.graph.input.append(vi("w", [4, 4]))
    return write(d, m), "initializer 'w': float_data holds 0 values, expected 16"


def raw_data_wrong_length(d):
    m = relu_model()
    m.graph.initializer[0].raw_data = b"\0" * 60
    return write(d, m), "initializer 'w': raw_data holds 60 bytes, expected 64"


def external_dotdot(d):
    sub = os.path.join(d, "model")
    os.mkdir(sub)
    write(d, np.zeros(16, np.float32).tobytes(), "weights.bin")
    return write(sub, external("../weights.bin")), "'../weights.bin' leaves the model's folder"


def external_absolute(d):
    data = write(d, np.zeros(16, np.float32).tobytes(), "weights.bin")
    return write(d, external(data)), "is an absolute path"


def external_symlink(d):
    sub = os.path.join(d, "model")
    os.mkdir(sub)
    write(d, np.zeros(16, np.float32).tobytes(), "weights.bin")
    os.symlink(os.path.join(d, "weights.bin"), os.path.join(sub, "link.bin"))
    return write(sub, external("link.bin")), "'link.bin' leads out of the model's folder"


def external_offset_past_end(d):
    write(d, np.zeros(16, np.float32).tobytes(), "weights.bin")
    return write(d, external("weights.bin", offset=1 << 62)), "is outside 'weights.bin'"


def external_length_past_end(d):
    write(d, np.zeros(16, np.float32).tobytes(), "weights.bin")
    return write(d, external("weights.bin", offset=8, length=64)), "is outside 'weights.bin'"


def external_length_overflow(d):
    # offset + length wraps around 2^64.
    write(d, np.zeros(16, np.float32).tobytes(), "weights.bin")
    m = external("weights.bin", offset=8, length=(1 << 64) - 4)
    return write(d, m), "is outside 'weights.bin'"


def external_short_file(d):
    # The file is in range but holds fewer bytes than the tensor needs.
    write(d, np.zeros(8, np.float32).tobytes(), "weights.bin")
    return write(d, external("weights.bin")), "initializer 'w': raw_data holds 32 bytes"


def external_missing_file(d):
    return write(d, external("absent.bin")), "cannot open external data file 'absent.bin'"


CASES = [
    truncated_protobuf, empty_file,
    int64_into_float_op, mixed_types_add, bad_data_type_code, bad_input_type_code,
    cycle, dangling_input, dangling_output,
    matmul_rank_mismatch, matmul_scalar, add_not_broadcastable, declared_output_mismatch,
    unknown_op_default_domain, unknown_op_custom_domain,
    huge_input, huge_initializer, huge_constant_of_shape, huge_expand, huge_declared_type,
    huge_reshape,
    initializer_without_data, raw_data_wrong_length,
    external_dotdot, external_absolute, external_symlink, external_offset_past_end,
    external_length_past_end, external_length_overflow, external_short_file,
    external_missing_file,
]


def check(kiln, case, root, timeout):
    """Returns (ok, returncode, the line or a reason)."""
    d = os.path.join(root, case.__name__)
    os.mkdir(d)
    path, expected = case(d)
    out = os.path.join(d, "out.so")
    try:
        r = subprocess.run([kiln, "compile", path, "-o", out], capture_output=True,
                           text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, None, "timed out after %ds" % timeout
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    first = lines[0] if lines else "(no error line)"
    if r.returncode < 0:
        return False, r.returncode, "killed by signal %d: %s" % (-r.returncode, r.stderr.strip())
    crash = [m for m in CRASH_MARKERS if m in r.stderr]
    if crash:
        return False, r.returncode, "crash text %r in: %s" % (crash[0], r.stderr.strip())
    if r.returncode != 1:
        return False, r.returncode, "exit code %d, expected 1: %s" % (r.returncode, first)
    if len(lines) != 1:
        return False, r.returncode, "%d stderr lines, expected 1: %s" % (
            len(lines), " | ".join(lines[:6]))
    if expected not in first:
        return False, r.returncode, "%r not in: %s" % (expected, first)
    if os.path.exists(out):
        return False, r.returncode, "a library was written despite the error: " + first
    return True, r.returncode, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--filter", default="", help="regex on case names")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per compile")
    ap.add_argument("--keep", action="store_true", help="keep the temporary models")
    args = ap.parse_args()

    kiln = os.path.abspath(args.kiln)
    root = tempfile.mkdtemp(prefix="kiln_malformed_")
    passed = failed = 0
    try:
        for case in CASES:
            if not re.search(args.filter, case.__name__):
                continue
            ok, rc, line = check(kiln, case, root, args.timeout)
            print("%-4s %-28s rc=%-4s %s" % ("ok" if ok else "FAIL", case.__name__, rc, line),
                  flush=True)
            passed += ok
            failed += not ok
    finally:
        if args.keep:
            print("models kept in", root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
