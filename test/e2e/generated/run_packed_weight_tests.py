#!/usr/bin/python3
"""MatMuls with constant weights packed in panels, checked against float64.

    /usr/bin/python3 test/e2e/generated/run_packed_weight_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

The CPU backend packs the constant B of an f32 MatMul whose weights outgrow half the
cache in panels of one register tile's columns at compile time, and runs it as a loop of
K blocks over foralls of row blocks and panels (the `packed_weights` strategy). Each
case is compiled with the default heuristics, with the strategy turned off
(`--schedule packed_weights=0`) and with it forced through a schedule file, for the host
CPU (512-bit vectors where it has them) and for x86-64-v3 (256-bit vectors: panels of
16 columns), so that every block shape is met: K with and without a partial last block,
rows fewer than one block, a whole block and a partial one, a batch dim, a bias added
after the product, weights too small for the heuristic, and weights fed at run time
(which the forced strategy cannot pack: it falls back to the contraction kernel).
ONNX Runtime (graph optimisations disabled) and float64 numpy must agree before kiln's
output is compared with them: max|kiln - ref| / max|ref| <= --tol.
Prints one line per case and compilation and `N passed, N failed`; exits non-zero on
any failure.
"""

import json
import os
import sys

import numpy as np

import generated_cases as gen

SEED = 4099

# name: (input shape [..., M, K], N, bias, weight is an initializer)
CASES = {
    # ViT-B/16's MLP: 197 rows (one partial row block), three whole K blocks.
    "vit_mlp_197x768x3072": ((1, 197, 768), 3072, True, True),
    # The way back: K = 3072, twelve K blocks.
    "vit_mlp_197x3072x768": ((1, 197, 3072), 768, True, True),
    # Rows past a whole block (300 = 256 + 44), K with a partial block (1000).
    "rows300_k1000_n512": ((300, 1000), 512, False, True),
    # A batch of three folds into the rows; K below one block.
    "batch3_rows50_k200_n2048": ((3, 50, 200), 2048, True, True),
    # Two panels at 512 bits, four at 256; K = 4100 leaves a 4-deep block.
    "rows257_k4100_n64": ((257, 4100), 64, False, True),
    # Matrix-vector products (a classifier): one row, the last panel
    # zero-padded (1000 columns), threads over panels.
    "gemv_1x2048x1000": ((1, 2048), 1000, True, True),
    "gemv_1x640x1001": ((1, 1, 640), 1001, False, True),
    # Fewer than two register tiles of rows read packed panels too, the last
    # one partial: 3 rows, and 13 over a batch of one.
    "rows3_k2048_n1001": ((3, 2048), 1001, True, True),
    "rows13_k700_n777": ((1, 13, 700), 777, False, True),
    # Several row blocks over a partial last panel (under 32 register tiles
    # of rows): 40 rows with a bias, and 150 (a partial row block) over a
    # batch of two.
    "rows40_k1500_n1001": ((40, 1500), 1001, True, True),
    "batch2_rows75_k900_n530": ((2, 75, 900), 530, False, True),
    # One row block over fewer than two register tiles of columns: the rows
    # split in two blocks for the threads and a rest of 2 rows, packed
    # weights and weights fed at run time.
    "rows50_k2568_n57": ((50, 2568), 57, True, True),
    "weight_input_50x2568x57": ((50, 2568), 57, False, False),
    # Weights in cache: the heuristic keeps the contraction kernel.
    "small_64x96x128": ((64, 96), 128, True, True),
    # Weights fed at run time: nothing to pack.
    "weight_input_128x512x512": ((128, 512), 512, False, False),
}

CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"])]


def compilations(name, work):
    """(label, extra compile arguments): default, off, forced, for each CPU."""
    path = os.path.join(work, "packed.json")
    with open(path, "w") as f:
        json.dump({name: {"strategy": "packed_weights"}}, f)
    out = []
    for cpu, args in CPUS:
        out.append((cpu, args))
        out.append((f"{cpu} off", args + ["--schedule", "packed_weights=0"]))
        out.append((f"{cpu} forced", args + ["--schedule-file", path]))
    return out


def save_matmul_case(name, x, w, b, const_w, work):
    """A MatMul node named `name` (plus an Add of the bias)."""
    from onnx import TensorProto, helper, numpy_helper
    inputs, inits, arrays = gen.x_and_weight(x, list(x.shape), w, const_w)
    out_shape = list(x.shape[:-1]) + [w.shape[1]]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p" if b is not None else "y"],
                              name=name)]
    if b is not None:
        inits.append(numpy_helper.from_array(b, "b"))
        nodes.append(helper.make_node("Add", ["p", "b"], ["y"], name=name + "_bias"))
    graph = helper.make_graph(nodes, name, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                             out_shape)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return gen.save_case(model, arrays, work)


def check_case(args, name, spec, work):
    """Returns [(label, ok, message)], one per compilation."""
    xshape, n, has_bias, const_w = spec
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    x = rng.standard_normal(xshape).astype(np.float32)
    w = (rng.standard_normal([xshape[-1], n]) / np.sqrt(xshape[-1])).astype(np.float32)
    b = rng.standard_normal([n]).astype(np.float32) if has_bias else None
    ref = x.astype(np.float64) @ w.astype(np.float64)
    if b is not None:
        ref = ref + b.astype(np.float64)
    model, inputs = save_matmul_case(name, x, w, b, const_w, work)
    return gen.check_against_references(args, model, inputs, ref, work,
                                        compilations(name, work))


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_packed_weights_", CASES, check_case))
