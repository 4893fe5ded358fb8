"""Reading the ONNX backend node tests (libonnx-testdata): op types and test data."""

import os
import re

DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"

# The dialect's op list (kiln.graph), used when no list is given.
DIALECT_OPS = """
Add Sub Mul Div Relu Sigmoid Tanh Exp Log Sqrt Erf Neg Abs Clip LeakyRelu HardSigmoid Gelu
MatMul Gemm Conv ConvTranspose MaxPool AveragePool GlobalAveragePool BatchNormalization
LayerNormalization Softmax LogSoftmax ReduceMean ReduceSum ReduceMax Reshape Flatten Transpose
Concat Split Slice Gather Squeeze Unsqueeze Expand Pad Cast Constant Identity Shape Where Equal
Less Greater Pow Resize
""".split()


def op_name(node):
    """`Op` for the default ONNX domain, `domain:Op` otherwise."""
    if node.domain in ("", "ai.onnx"):
        return node.op_type
    return f"{node.domain}:{node.op_type}"


def graph_ops(graph):
    """Op names used in a graph, including the bodies of If/Loop/Scan subgraphs."""
    ops = []
    for node in graph.node:
        ops.append(op_name(node))
        for attr in node.attribute:
            if attr.HasField("g"):
                ops += graph_ops(attr.g)
            for g in attr.graphs:
                ops += graph_ops(g)
    return ops


def non_tensor_values(model):
    """Names of graph inputs/outputs whose type is not a plain tensor (sequence, optional,
    map, sparse tensor): kiln's run interface only passes tensors."""
    bad = []
    for vi in list(model.graph.input) + list(model.graph.output):
        if vi.type.WhichOneof("value") != "tensor_type":
            bad.append(f"{vi.name}:{vi.type.WhichOneof('value')}")
    return bad


def _snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


_SCHEMA_SNAKE = None


def _schema_names():
    global _SCHEMA_SNAKE
    if _SCHEMA_SNAKE is None:
        from onnx import defs
        _SCHEMA_SNAKE = {}
        for s in defs.get_all_schemas_with_history():
            _SCHEMA_SNAKE.setdefault(_snake(s.name), s.name)
    return _SCHEMA_SNAKE


def primary_op(test_name, ops):
    """The op a test is about, for grouping results: the one op when the graph has a single
    op type besides Constant, else the longest op whose snake_case name prefixes the test
    name (test_softmax_axis_0_expanded -> Softmax), else the last node's op."""
    distinct = sorted(set(o for o in ops if o != "Constant")) or sorted(set(ops))
    if len(distinct) == 1:
        return distinct[0]
    stem = test_name[len("test_"):] if test_name.startswith("test_") else test_name
    best = None
    for snake, name in _schema_names().items():
        if (stem == snake or stem.startswith(snake + "_")) and (best is None or len(snake) > len(best[0])):
            best = (snake, name)
    if best:
        return best[1]
    return ops[-1] if ops else "?"


def list_tests(data_dir, pattern=None):
    """Test directory names (sorted) that contain model.onnx and match the regex."""
    rx = re.compile(pattern) if pattern else None
    names = []
    for name in sorted(os.listdir(data_dir)):
        if not os.path.isfile(os.path.join(data_dir, name, "model.onnx")):
            continue
        if rx and not rx.search(name):
            continue
        names.append(name)
    return names


def data_sets(test_dir):
    found = []
    for name in os.listdir(test_dir):
        m = re.match(r"test_data_set_(\d+)$", name)
        if m and os.path.isdir(os.path.join(test_dir, name)):
            found.append((int(m.group(1)), os.path.join(test_dir, name)))
    return [p for _, p in sorted(found)]


def read_ops_file(path):
    """Op names from a file: whitespace- or line-separated, '#' starts a comment."""
    ops = []
    with open(path) as f:
        for line in f:
            ops += line.split("#", 1)[0].split()
    return ops


def read_expected_failures(path):
    """{test name: reason} from a file of `name  # reason` lines; a line starting with #
    is a comment. Every entry must give its reason."""
    expected = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition("#")
            name, reason = name.strip(), reason.strip()
            if not reason:
                raise ValueError(f"{path}:{lineno}: '{name}' has no reason (name  # reason)")
            expected[name] = reason
    return expected


def check_expected_failures(results, expected, path):
    """Compares results (objects with name and status) with the expected failures:
    prints every test that failed without being listed and every listed test that
    passed, and returns True iff there are none. Listed tests that were skipped or not
    run (a --filter) are not judged."""
    status = {r.name: r.status for r in results}
    new = sorted(n for n, s in status.items() if s == "fail" and n not in expected)
    fixed = sorted(n for n in expected if status.get(n) == "pass")
    for n in new:
        print(f"UNEXPECTED FAILURE: {n} (not in {os.path.basename(path)})")
    for n in fixed:
        print(f"UNEXPECTED PASS: {n} (listed in {os.path.basename(path)}: "
              f"{expected[n]}; remove the entry)")
    held = sum(1 for n in expected if status.get(n) == "fail")
    print(f"expected failures: {held} of {len(expected)} listed failed as expected, "
          f"{len(new)} unexpected failure(s), {len(fixed)} unexpected pass(es)")
    return not new and not fixed
