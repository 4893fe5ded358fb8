#!/usr/bin/python3
"""Outputs sized at run time: data-dependent ops and dims computed from input dims.

    /usr/bin/python3 test/e2e/generated/run_data_dependent_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--runtime-lib build/lib/libkiln_rt.so] [--filter RE] [--keep]

Each case is a small model whose outputs are declared with fresh dim names (NonZero, Compress,
Unique, TopK with K an input, NonMaxSuppression, Concat, Reshape and Slice of dynamic
inputs), with
seeded random inputs, several input sets per case (different data and sizes). The
reference is numpy (an independent implementation, e.g. a greedy NMS in Python), and ONNX
Runtime must agree with it first. kiln compiles each model once and runs every input set
through `kiln run`; with --runtime-lib, also through the Python loader (kiln_rt.py).
Integers must match exactly, floats within --tol relative.
Prints one line per case and input set and `N passed, N failed`.
"""

import argparse
import os
import re
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 4242


def model(nodes, inputs, outputs, opset=13, inits=()):
    from onnx import helper
    graph = helper.make_graph(nodes, "data_dependent", inputs, outputs,
                              initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def vi(name, dtype, dims):
    from onnx import helper
    return helper.make_tensor_value_info(name, dtype, dims)


def ovi(name, dtype, rank):
    """An output declared with its rank and names no input dim uses."""
    return vi(name, dtype, [f"{name}_{i}" for i in range(rank)])


def sparse(rng, shape, dtype):
    x = rng.integers(-3, 4, size=shape).astype(dtype)
    x[rng.random(shape) < 0.5] = 0
    return x


def unique_reference(x, axis, sorted_):
    y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                 return_counts=True, axis=axis)
    inv = inv.reshape(-1)
    if not sorted_:
        # Order of first occurrence.
        order = np.argsort(idx, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], rank[inv]
    return [y, idx.astype(np.int64), inv.astype(np.int64), cnt.astype(np.int64)]


def iou(a, b):
    """a, b: [y1, x1, y2, x2] with corners in any order."""
    ay1, ay2 = sorted((a[0], a[2]))
    ax1, ax2 = sorted((a[1], a[3]))
    by1, by2 = sorted((b[0], b[2]))
    bx1, bx2 = sorted((b[1], b[3]))
    inter = max(0.0, min(ay2, by2) - max(ay1, by1)) * max(0.0, min(ax2, bx2) - max(ax1, bx1))
    union = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter
    return inter / union if inter > 0 and union > 0 else 0.0


def nms_reference(boxes, scores, max_out, iou_th, score_th):
    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            order = sorted(range(len(s)), key=lambda i: (-s[i], i))
            kept = []
            for i in order:
                if len(kept) >= max_out or not s[i] > score_th:
                    continue
                if all(iou(boxes[b, i], boxes[b, k]) <= iou_th for k in kept):
                    kept.append(i)
            rows += [[b, c, i] for i in kept]
    return [np.array(rows, np.int64).reshape(-1, 3)]


def cases():
    from onnx import TensorProto as T, helper
    rng = np.random.default_rng(SEED)
    out = {}

    xs = [sparse(rng, s, np.float32) for s in ((2, 3, 4), (5, 1, 7), (1, 1, 1))]
    out["nonzero_f32"] = (
        model([helper.make_node("NonZero", ["x"], ["y"])],
              [vi("x", T.FLOAT, ["a", "b", "c"])], [ovi("y", T.INT64, 2)]),
        [([x], [np.array(np.nonzero(x), np.int64)]) for x in xs])
    xs = [sparse(rng, s, np.int32) for s in ((6, 9), (3, 3))]
    xs.append(np.zeros((4, 2), np.int32))
    out["nonzero_i32_none"] = (
        model([helper.make_node("NonZero", ["x"], ["y"])],
              [vi("x", T.INT32, ["a", "b"])], [ovi("y", T.INT64, 2)]),
        [([x], [np.array(np.nonzero(x), np.int64)]) for x in xs])

    sets = []
    for n, clen in ((7, 5), (4, 4), (9, 9)):
        x = rng.standard_normal((3, n, 2)).astype(np.float32)
        cond = rng.random(clen) < 0.5
        sets.append(([x, cond], [np.compress(cond, x, axis=1)]))
    out["compress_axis1"] = (
        model([helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
              [vi("x", T.FLOAT, [3, "n", 2]), vi("c", T.BOOL, ["m"])],
              [ovi("y", T.FLOAT, 3)], opset=11), sets)
    sets = []
    for shape in ((4, 5), (2, 3)):
        x = rng.integers(0, 100, size=shape).astype(np.int64)
        cond = rng.random(x.size) < 0.3
        sets.append(([x, cond], [np.compress(cond, x)]))
    out["compress_flat_i64"] = (
        model([helper.make_node("Compress", ["x", "c"], ["y"])],
              [vi("x", T.INT64, ["a", "b"]), vi("c", T.BOOL, ["m"])],
              [ovi("y", T.INT64, 1)], opset=11), sets)

    for sorted_ in (1, 0):
        sets = []
        for n in (12, 30, 1):
            x = rng.integers(-4, 5, size=n).astype(np.float32)
            sets.append(([x], unique_reference(x, None, sorted_)))
        out[f"unique_flat_sorted{sorted_}"] = (
            model([helper.make_node("Unique", ["x"], ["y", "i", "v", "n"], sorted=sorted_)],
                  [vi("x", T.FLOAT, ["n"])],
                  [ovi(k, t, 1) for k, t in (("y", T.FLOAT), ("i", T.INT64),
                                             ("v", T.INT64), ("n", T.INT64))], opset=11),
            sets)
    sets = []
    for rows in (8, 3):
        base = rng.integers(0, 3, size=(3, 4)).astype(np.int64)
        x = base[rng.integers(0, 3, size=rows)]
        sets.append(([x], unique_reference(x, 0, 1)))
    out["unique_rows_i64"] = (
        model([helper.make_node("Unique", ["x"], ["y", "i", "v", "n"], axis=0)],
              [vi("x", T.INT64, ["r", 4])],
              [ovi("y", T.INT64, 2)] + [ovi(k, T.INT64, 1) for k in "ivn"], opset=11),
        sets)

    sets = []
    for k in (3, 9, 0):
        x = rng.permutation(36).astype(np.float32).reshape(4, 9)
        order = np.argsort(-x, axis=1, kind="stable")[:, :k]
        sets.append(([x, np.array([k], np.int64)],
                     [np.take_along_axis(x, order, 1), order.astype(np.int64)]))
    out["topk_runtime_k"] = (
        model([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
              [vi("x", T.FLOAT, [4, 9]), vi("k", T.INT64, [1])],
              [ovi("v", T.FLOAT, 2), ovi("i", T.INT64, 2)], opset=11), sets)

    sets = []
    for b, c, n, center in ((2, 3, 12, 0), (1, 2, 30, 0), (1, 1, 5, 0)):
        lo = rng.random((b, n, 2)).astype(np.float32) * 4
        boxes = np.concatenate([lo, lo + 0.5 + rng.random((b, n, 2)).astype(np.float32) * 2],
                               axis=2)
        scores = rng.random((b, c, n)).astype(np.float32)
        params = [np.array([4], np.int64), np.array([0.3], np.float32),
                  np.array([0.2], np.float32)]
        sets.append(([boxes, scores] + params,
                     nms_reference(boxes, scores, 4, 0.3, 0.2)))
    out["nms"] = (
        model([helper.make_node("NonMaxSuppression", ["b", "s", "m", "iou", "th"], ["y"])],
              [vi("b", T.FLOAT, ["B", "N", 4]), vi("s", T.FLOAT, ["B", "C", "N"]),
               vi("m", T.INT64, [1]), vi("iou", T.FLOAT, [1]), vi("th", T.FLOAT, [1])],
              [ovi("y", T.INT64, 2)], opset=11), sets)

    # A Reshape between two all-dynamic shapes of the same rank (the extents
    # move: [n, 6] to [2n, 3]), and a product's column slice bounded by a
    # computed extent (a view that is not contiguous) returned as it is.
    sets = []
    w = rng.standard_normal((4, 6)).astype(np.float32)
    for n in (3, 5):
        x = rng.standard_normal((n, 6)).astype(np.float32)
        v = rng.standard_normal((n, 4)).astype(np.float32)
        sets.append(([x, v], [x.reshape(2 * n, 3), (v.astype(np.float64) @ w)[:, :3]
                              .astype(np.float32)]))
    out["reshape_same_rank_and_strided_slice"] = (
        model([helper.make_node("Shape", ["x"], ["sh"]),
               helper.make_node("Gather", ["sh", "zero"], ["rows"], axis=0),
               helper.make_node("Mul", ["rows", "two"], ["rows2"]),
               helper.make_node("Concat", ["rows2", "three"], ["shape"], axis=0),
               helper.make_node("Reshape", ["x", "shape"], ["y"]),
               helper.make_node("MatMul", ["v", "w"], ["p"]),
               helper.make_node("Shape", ["p"], ["psh"]),
               helper.make_node("Gather", ["psh", "one"], ["cols"], axis=0),
               helper.make_node("Div", ["cols", "two"], ["half"]),
               helper.make_node("Slice", ["p", "zero", "half", "one"], ["z"])],
              [vi("x", T.FLOAT, ["n", "c"]), vi("v", T.FLOAT, ["n", 4])],
              [ovi("y", T.FLOAT, 2), ovi("z", T.FLOAT, 2)],
              inits=[helper.make_tensor("zero", T.INT64, [1], [0]),
                     helper.make_tensor("one", T.INT64, [1], [1]),
                     helper.make_tensor("two", T.INT64, [1], [2]),
                     helper.make_tensor("three", T.INT64, [1], [3]),
                     helper.make_tensor("w", T.FLOAT, [4, 6], w.ravel().tolist())]), sets)

    # A product over a run-time number of rows: whole static blocks of rows
    # and a remainder (150 = 2 x 64 + 22), exactly one block, fewer than one.
    sets = []
    wm = rng.standard_normal((48, 40)).astype(np.float32)
    for n in (150, 64, 5):
        x = rng.standard_normal((n, 48)).astype(np.float32)
        sets.append(([x], [(x.astype(np.float64) @ wm).astype(np.float32)]))
    out["matmul_dynamic_rows"] = (
        model([helper.make_node("MatMul", ["x", "w"], ["y"])],
              [vi("x", T.FLOAT, ["n", 48])], [ovi("y", T.FLOAT, 2)],
              inits=[helper.make_tensor("w", T.FLOAT, [48, 40], wm.ravel().tolist())]), sets)

    # Extents computed from input dims: a concatenation and a data-bounded slice.
    sets = []
    for n in (3, 8):
        x = rng.standard_normal((n, 2)).astype(np.float32)
        end = np.array([n // 2 + 1], np.int64)
        sets.append(([x, end], [np.concatenate([x, x], 0), x[1:end[0]]]))
    out["input_dim_arithmetic"] = (
        model([helper.make_node("Concat", ["x", "x"], ["y"], axis=0),
               helper.make_node("Slice", ["x", "one", "e", "zero"], ["z"])],
              [vi("x", T.FLOAT, ["n", 2]), vi("e", T.INT64, [1])],
              [ovi("y", T.FLOAT, 2), ovi("z", T.FLOAT, 2)],
              inits=[helper.make_tensor("one", T.INT64, [1], [1]),
                     helper.make_tensor("zero", T.INT64, [1], [0])]), sets)
    return out


def compare(got, ref, tol):
    got = np.asarray(got)
    if got.shape != ref.shape:
        return f"shape {list(got.shape)} != {list(ref.shape)}"
    if got.dtype != ref.dtype:
        return f"dtype {got.dtype} != {ref.dtype}"
    if ref.dtype.kind == "f":
        _, rel = e2e.relative_error(got, ref)
        return None if rel <= tol else f"max rel err {rel:.3g}"
    return None if np.array_equal(got, ref) else "values differ"


def check_case(args, name, onnx_model, sets, work, runtime):
    import onnx
    path = os.path.join(work, "model.onnx")
    onnx.checker.check_model(onnx_model)
    onnx.save(onnx_model, path)
    so = os.path.join(work, "model.so")
    r = e2e.run_command([args.kiln, "compile", path, "-o", so], timeout=args.timeout)
    if r.returncode != 0:
        return [(name, False, f"kiln compile: {r.first_error_line()}")]
    library = runtime.load(so) if runtime else None
    results = []
    for k, (inputs, refs) in enumerate(sets):
        label = f"{name} set {k}"
        paths = []
        for i, a in enumerate(inputs):
            paths.append(os.path.join(work, f"in{k}_{i}.npy"))
            np.save(paths[-1], a)
        rr, ort_paths = e2e.ort_run(path, paths, os.path.join(work, f"ort{k}"),
                                    ort_dir=args.ort_dir, timeout=args.timeout)
        if rr.returncode != 0:
            results.append((label, False, f"ONNX Runtime: {rr.first_error_line()}"))
            continue
        why = next((f"ONNX Runtime vs numpy, output {i}: {w}"
                    for i, (p, ref) in enumerate(zip(ort_paths, refs))
                    for w in [compare(np.load(p), ref, args.tol)] if w), None)
        if why:
            results.append((label, False, why))
            continue
        outs = [os.path.join(work, f"kiln{k}_{i}.npy") for i in range(len(refs))]
        argv = [args.kiln, "run", so]
        for p in paths:
            argv += ["--input", p]
        for p in outs:
            argv += ["--output", p]
        rk = e2e.run_command(argv, timeout=args.timeout)
        if rk.returncode != 0:
            results.append((label, False, f"kiln run: {rk.first_error_line()}"))
            continue
        problems = [f"kiln run output {i}: {w}" for i, (p, ref) in enumerate(zip(outs, refs))
                    for w in [compare(e2e.load_tensor(p), ref, args.tol)] if w]
        if library is not None:
            got = library.run(*inputs)
            problems += [f"Python loader output {i}: {w}"
                         for i, (g, ref) in enumerate(zip(got, refs))
                         for w in [compare(g, ref, args.tol)] if w]
        shapes = ", ".join("x".join(map(str, r.shape)) for r in refs)
        results.append((label, not problems, "; ".join(problems) or f"outputs {shapes}"))
    if library is not None:
        library.close()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--runtime-lib", default=None, help="libkiln_rt.so for the Python loader")
    ap.add_argument("--filter", default=None)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if args.ort_dir:
        args.ort_dir = os.path.abspath(args.ort_dir)
    runtime = None
    if args.runtime_lib:
        os.environ["KILN_RT_LIBRARY"] = os.path.abspath(args.runtime_lib)
        sys.path.insert(0, os.path.join(e2e.REPO_ROOT, "runtime", "python"))
        import kiln_rt as runtime  # noqa: E402
    root = tempfile.mkdtemp(prefix="kiln-data-dependent-")
    passed = failed = 0
    for name, (onnx_model, sets) in cases().items():
        if args.filter and not re.search(args.filter, name):
            continue
        work = os.path.join(root, name)
        os.makedirs(work)
        for label, ok, msg in check_case(args, name, onnx_model, sets, work, runtime):
            print(f"{'PASS' if ok else 'FAIL'} {label}: {msg}", flush=True)
            passed += ok
            failed += not ok
    return e2e.finish(passed, failed, root, args.keep)


if __name__ == "__main__":
    sys.exit(main())
