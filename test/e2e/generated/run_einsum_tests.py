#!/usr/bin/python3
"""Einsum, as a batched matrix product or as one generic, checked against float64.

    /usr/bin/python3 test/e2e/generated/run_einsum_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--filter REGEX] [--tol 1e-5] [--keep]

A two-input float Einsum whose labels are batch, row, column and reduced labels
lowers to linalg.batch_matmul (linalg.matmul without batch labels) between
transposes and reshapes, and takes the contraction kernel; any other Einsum is one
linalg.generic. The cases cover both: MaxViT's attention forms (three batch labels,
k read transposed, 49 x 49 windows), labels of each kind in scrambled orders and
several to a kind, an output in another order than the product's, a symbolic batch
dim, and, as generics, a broadcast batch dim, a matrix-vector product, a diagonal and
three inputs. ONNX Runtime (graph optimisations disabled) and float64 numpy must
agree before kiln's output is compared with them: max|kiln - ref| / max|ref| <=
--tol. Prints one line per case and `N passed, N failed`; exits non-zero on any
failure.
"""

import sys

import numpy as np

import generated_cases as gen

SEED = 3301

# name: (equation, input shapes, symbolic dims per input (None: all static))
CASES = {
    "maxvit_scores": ("B G H I D, B G H J D -> B G H I J",
                      [(1, 16, 2, 49, 32), (1, 16, 2, 49, 32)], None),
    "maxvit_values": ("B G H I J, B G H J D -> B G H I D",
                      [(1, 16, 2, 49, 49), (1, 16, 2, 49, 32)], None),
    "bmm": ("bij,bjk->bik", [(3, 17, 40), (3, 40, 23)], None),
    "scrambled_two_reduced": ("kbil,lbjk->jbi", [(5, 2, 19, 4), (4, 2, 33, 5)], None),
    "two_rows_two_cols": ("bmnk,bkpq->bqmpn", [(2, 3, 5, 24), (2, 24, 7, 4)], None),
    "matrix_transposed_a": ("ji,jk->ik", [(64, 31), (64, 45)], None),
    "symbolic_batch": ("nbij,nbjk->nbik", [(3, 2, 20, 16), (3, 2, 16, 24)],
                       [["n", 2, 20, 16], ["n", 2, 16, 24]]),
    "broadcast_batch": ("bij,bjk->bik", [(1, 6, 8), (4, 8, 5)], None),
    "matvec": ("ij,j->i", [(33, 20), (20,)], None),
    "diagonal_product": ("ii,ij->ij", [(9, 9), (9, 7)], None),
    "three_inputs": ("ij,jk,kl->il", [(5, 6), (6, 7), (7, 8)], None),
}


def check_case(args, name, spec, work):
    from onnx import TensorProto, helper
    equation, shapes, dims = spec
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ref = np.einsum(equation.replace(" ", ""), *[a.astype(np.float64) for a in arrays])
    names = [f"x{i}" for i in range(len(arrays))]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                            dims[i] if dims else list(a.shape))
              for i, (n, a) in enumerate(zip(names, arrays))]
    node = helper.make_node("Einsum", names, ["out"], equation=equation, name=name)
    model, input_paths, ref = gen.save_graph_case([node], name, inputs, arrays, ref, work,
                                                  opset=12)
    return gen.check_against_references(args, model, input_paths, ref, work,
                                        [("native", ["--cpu", "native"]),
                                         ("x86-64-v3", ["--cpu", "x86-64-v3"])])


if __name__ == "__main__":
    sys.exit(gen.main(__doc__, "kiln_einsum_", CASES, check_case))
