#!/usr/bin/python3
"""Generated softmax, normalization and batched-product models, checked against ORT.

    /usr/bin/python3 test/e2e/generated/run_row_chain_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

Softmax, LogSoftmax, LayerNormalization and reductions followed by ops that read
them run row by row in one loop (lowering/cpu/FuseRowChains.cpp): every buffer the
chain writes must be touched one row at a time. The cases vary the row length
(remainders of every vector width, rows longer than the cache), the row count
(below the threshold, enough for threads), the axis (innermost or not, which
stays unfused), graphs where the chain's temporaries could share bytes with its
output (attention: a product, a scale, a softmax and a product), a reduction
read by a user-written expression (x - mean(x)) / max(x), and MatMuls with
several equal batch dims (attention's [1, heads, T, d] products, merged into one
batch), a batch of one, or broadcast batch dims. Compiled for the host CPU and for x86-64-v3 and
x86-64; ONNX Runtime (graph optimisations disabled) and a float64 numpy reference
must agree before kiln's output is compared with them. Prints one line per case
and CPU and `N passed, N failed`; exits non-zero on any failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 2718

CPUS = [("native", ["--cpu", "native"]), ("x86-64-v3", ["--cpu", "x86-64-v3"]),
        ("x86-64", ["--cpu", "x86-64"])]

# name: (kind, shape, axis or second shape)
CASES = {
    "softmax_12x197x197": ("softmax", (1, 12, 197, 197), -1),
    "softmax_rows_of_1": ("softmax", (64, 1), -1),
    "softmax_rows_of_5": ("softmax", (3, 50, 5), -1),
    "softmax_rows_of_33": ("softmax", (2, 7, 33), -1),
    "softmax_few_rows": ("softmax", (3, 1000), -1),
    "softmax_long_rows": ("softmax", (4, 20000), -1),
    "softmax_axis1": ("softmax", (2, 19, 6, 7), 1),
    "logsoftmax_40x77": ("logsoftmax", (40, 77), -1),
    "layernorm_197x768": ("layernorm", (1, 197, 768), -1),
    "layernorm_2_axes": ("layernorm", (4, 6, 10, 12), -2),
    "layernorm_rows_of_13": ("layernorm", (50, 13), -1),
    "centered_over_max": ("centered", (30, 100), -1),
    "attention_t50": ("attention", (1, 12, 50, 64), None),
    "attention_t197": ("attention", (1, 12, 197, 64), None),
    "matmul_4d_heads": ("matmul", (1, 4, 37, 16), (1, 4, 16, 29)),
    "matmul_5d": ("matmul", (2, 3, 2, 9, 8), (2, 3, 2, 8, 10)),
    "matmul_batch_of_one": ("matmul", (1, 1, 40, 24), (1, 1, 24, 33)),
    "matmul_3d_batch_of_one": ("matmul", (1, 64, 48), (1, 48, 20)),
    # Broadcast batch dims: a right side of batch 1 folds into one matrix,
    # other operands are copied to the full batch.
    "matmul_rhs_batch_of_one": ("matmul", (4, 37, 16), (1, 16, 29)),
    "matmul_rhs_unit_4d": ("matmul", (2, 3, 37, 16), (1, 1, 16, 29)),
    "matmul_lhs_broadcast": ("matmul", (1, 37, 16), (4, 16, 29)),
    "matmul_both_broadcast": ("matmul", (2, 1, 37, 16), (1, 3, 16, 29)),
    "matmul_lhs_2d_rhs_batched": ("matmul", (37, 16), (4, 16, 29)),
    "matmul_vector_batched": ("matmul", (16,), (4, 16, 29)),
}


def softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def make_case(name, spec, rng, work):
    """Writes the model and its inputs; returns (model path, input paths, reference)."""
    from onnx import TensorProto, helper, numpy_helper
    kind, shape, extra = spec
    nodes, inits, arrays, ins = [], [], [], []
    ftype = TensorProto.FLOAT

    def add_input(n, a):
        arrays.append(a)
        ins.append(helper.make_tensor_value_info(n, ftype, list(a.shape)))
        return a.astype(np.float64)

    if kind in ("softmax", "logsoftmax"):
        x = add_input("x", (rng.standard_normal(shape) * 4).astype(np.float32))
        op = "Softmax" if kind == "softmax" else "LogSoftmax"
        nodes.append(helper.make_node(op, ["x"], ["out"], axis=extra))
        ref = softmax(x, extra)
        if kind == "logsoftmax":
            ref = np.log(ref)
    elif kind == "layernorm":
        x = add_input("x", (rng.standard_normal(shape) * 3 + 1).astype(np.float32))
        axes = tuple(range(extra % len(shape), len(shape)))
        g = rng.standard_normal(shape[axes[0]:]).astype(np.float32)
        b = rng.standard_normal(shape[axes[0]:]).astype(np.float32)
        inits += [numpy_helper.from_array(g, "g"), numpy_helper.from_array(b, "b")]
        nodes.append(helper.make_node("LayerNormalization", ["x", "g", "b"], ["out"],
                                      axis=extra, epsilon=1e-5))
        mu = x.mean(axes, keepdims=True)
        var = ((x - mu) ** 2).mean(axes, keepdims=True)
        ref = (x - mu) / np.sqrt(var + 1e-5) * g + b
    elif kind == "centered":
        x = add_input("x", (rng.standard_normal(shape) + 3).astype(np.float32))
        nodes += [helper.make_node("ReduceMean", ["x"], ["m"], axes=[extra], keepdims=1),
                  helper.make_node("ReduceMax", ["x"], ["h"], axes=[extra], keepdims=1),
                  helper.make_node("Sub", ["x", "m"], ["c"]),
                  helper.make_node("Div", ["c", "h"], ["out"])]
        ref = (x - x.mean(extra, keepdims=True)) / x.max(extra, keepdims=True)
    elif kind == "attention":
        kshape = shape[:2] + (shape[3], shape[2])
        q = add_input("q", rng.standard_normal(shape).astype(np.float32))
        k = add_input("k", rng.standard_normal(kshape).astype(np.float32))
        v = add_input("v", rng.standard_normal(shape).astype(np.float32))
        inits.append(numpy_helper.from_array(np.float32(8.0), "d"))
        nodes += [helper.make_node("MatMul", ["q", "k"], ["s"]),
                  helper.make_node("Div", ["s", "d"], ["t"]),
                  helper.make_node("Softmax", ["t"], ["p"], axis=-1),
                  helper.make_node("MatMul", ["p", "v"], ["out"])]
        ref = softmax(q @ k / 8.0, -1) @ v
    else:
        a = add_input("a", rng.standard_normal(shape).astype(np.float32))
        b = add_input("b", rng.standard_normal(extra).astype(np.float32))
        nodes.append(helper.make_node("MatMul", ["a", "b"], ["out"]))
        ref = a @ b
    return gen.save_graph_case(nodes, name, ins, arrays, ref, work, inits)


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_row_chain_", CASES, gen.seeded_checks(SEED, make_case, CPUS)))
