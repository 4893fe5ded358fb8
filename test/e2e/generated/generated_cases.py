"""Shared driver for the generated-model e2e tests in this folder.

Each test script builds small ONNX models (one case each), computes a float64 numpy
reference, checks that ONNX Runtime agrees with it, then compiles and runs the model
through kiln and compares. The scripts only describe their cases and references.
"""

import argparse
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import e2e_common as e2e  # noqa: E402


def save_case(model, arrays, work):
    """Checks and writes `model` and its input arrays; returns (model path, input paths)."""
    import onnx
    onnx.checker.check_model(model)
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    input_paths = []
    for k, a in enumerate(arrays):
        p = os.path.join(work, f"input_{k}.npy")
        np.save(p, a)
        input_paths.append(p)
    return path, input_paths


def save_graph_case(nodes, name, inputs, arrays, ref, work, inits=(), out_type=None,
                    opset=17):
    """A model of `nodes` with graph inputs `inputs` (value infos, fed by `arrays`), the
    initializers `inits` and one output "out" shaped like `ref` (float unless `out_type`);
    written with its inputs as save_case does. Returns (model path, input paths, ref)."""
    from onnx import TensorProto, helper
    out = helper.make_tensor_value_info("out", out_type or TensorProto.FLOAT, list(ref.shape))
    graph = helper.make_graph(nodes, name, inputs, [out], initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path, input_paths = save_case(model, arrays, work)
    return path, input_paths, ref


def x_and_weight(x, xdims, w, const_w):
    """Graph inputs, initializers and input arrays for input "x" (dims `xdims`) and
    weight "w": an initializer when `const_w`, else a second graph input."""
    from onnx import TensorProto, helper, numpy_helper
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, xdims)]
    inits, arrays = [], [x]
    if const_w:
        inits.append(numpy_helper.from_array(w, "w"))
    else:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, list(w.shape)))
        arrays.append(w)
    return inputs, inits, arrays


def save_conv_case(op_type, name, x, w, b, const_w, xdims, ydims, opset, work, **attrs):
    """A one-node Conv/ConvTranspose model (the node named `name`, which schedule files
    key) over input x (dims `xdims`, which may name a
    symbolic batch), weight w (an initializer when `const_w`, else a second graph input)
    and optional bias b; writes it with its inputs as save_case does."""
    from onnx import TensorProto, helper, numpy_helper
    inputs, inits, arrays = x_and_weight(x, xdims, w, const_w)
    names = ["x", "w"]
    if b is not None:
        inits.append(numpy_helper.from_array(b, "b"))
        names.append("b")
    node = helper.make_node(op_type, names, ["y"], name=name, **attrs)
    graph = helper.make_graph([node], name, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ydims)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return save_case(model, arrays, work)


def check_against_references(args, model, inputs, ref, work, compilations):
    """ORT must reproduce the numpy reference; then kiln, once per (label, extra
    compile arguments) in `compilations`. Returns [(label, ok, message)]."""
    why = ort_disagreement(args, model, inputs, ref, work)
    if why:
        return [("ort", False, why)]
    return [(label,) + run_kiln(args, model, inputs, ref, work, label, extra)
            for label, extra in compilations]


def seeded_checks(seed, make_case, compilations):
    """A check_case for `main` over cases built by `make_case(name, spec, rng, work) ->
    (model path, input paths, reference)`, each from its own seeded generator, checked
    by check_against_references with `compilations`."""
    def check_case(args, name, spec, work):
        rng = np.random.default_rng(seed + sum(map(ord, name)))
        model, inputs, ref = make_case(name, spec, rng, work)
        return check_against_references(args, model, inputs, ref, work, compilations)
    return check_case


def ort_disagreement(args, model, inputs, ref, work):
    """None when ONNX Runtime reproduces the numpy reference, else why not."""
    r, ref_paths = e2e.ort_run(model, inputs, os.path.join(work, "ort"), ort_dir=args.ort_dir,
                               extra=["--opt-level", "disabled"], timeout=args.timeout)
    if r.returncode != 0 or len(ref_paths) != 1:
        return f"ONNX Runtime failed: {r.first_error_line()}"
    ort = np.load(ref_paths[0])
    if ort.shape != ref.shape:
        return f"ONNX Runtime shape {list(ort.shape)} != numpy {list(ref.shape)}"
    _, ort_rel = e2e.relative_error(ort, ref)
    if not ort_rel <= args.tol:
        return f"ONNX Runtime and numpy disagree (max rel err {ort_rel:.3g})"
    return None


def run_kiln(args, model, inputs, ref, work, label="native", extra=("--cpu", "native")):
    """Compiles (with `extra` arguments) and runs the model; returns (ok, message)."""
    so = os.path.join(work, f"model_{label}.so")
    r = e2e.run_command([args.kiln, "compile", model, "-o", so] + list(extra),
                        timeout=args.timeout)
    if r.returncode != 0:
        return False, f"kiln compile failed: {r.first_error_line()}"
    out = os.path.join(work, f"kiln_output_{label}.npy")
    argv = [args.kiln, "run", so]
    for p in inputs:
        argv += ["--input", p]
    r = e2e.run_command(argv + ["--output", out], timeout=args.timeout)
    if r.returncode != 0:
        return False, f"kiln run failed: {r.first_error_line()}"
    got = e2e.load_tensor(out)
    if got.shape != ref.shape:
        return False, f"shape {list(got.shape)} != expected {list(ref.shape)}"
    max_abs, max_rel = e2e.relative_error(got, ref)
    return max_rel <= args.tol, f"max abs err {max_abs:.3g}, max rel err {max_rel:.3g}"


def main(doc, prefix, cases, check_case):
    """Runs `check_case(args, name, spec, work) -> [(label, ok, message)]` over `cases`.

    Prints one line per result and `N passed, N failed`; returns the exit status."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--filter", default=None, help="regex on the case name")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--keep", action="store_true", help="keep the work dir")
    args = ap.parse_args()
    if args.ort_dir:
        args.ort_dir = os.path.abspath(args.ort_dir)

    root = tempfile.mkdtemp(prefix=prefix)
    passed = failed = 0
    for name, spec in cases.items():
        if args.filter and not re.search(args.filter, name):
            continue
        work = os.path.join(root, name)
        os.makedirs(work)
        for label, ok, msg in check_case(args, name, spec, work):
            print(f"{'PASS' if ok else 'FAIL'} {name} [{label}]: {msg}", flush=True)
            passed += ok
            failed += not ok
    return e2e.finish(passed, failed, root, args.keep)
