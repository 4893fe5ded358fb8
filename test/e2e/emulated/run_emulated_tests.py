#!/usr/bin/python3
"""Runs ONNX node tests and one real CNN for a cross target under qemu-user.

    /usr/bin/python3 test/e2e/emulated/run_emulated_tests.py [--target aarch64]
        [--kiln build/bin/kiln] [--runner build/<arch>/kiln_run_npy]
        [--jobs 2] [--filter REGEX] [--no-node-tests] [--no-cnn]
        [--expected-failures FILE | --min-pass-rate 0.8]
        [--ort-dir build/ort] [--models-dir test/e2e/models/cache] [--verbose]

Everything target-specific comes from `kiln targets`: the triple names the qemu binary
(qemu-<arch>[-static]), the sysroot (/usr/<triple>) and the cross-built runner
(build/<arch>/kiln_run_npy, made by the kiln_rt_<arch> CMake target). Each model is
compiled with `kiln compile --target <target>`; input .pb files are converted to .npy on
the host, the model runs under `qemu-<arch> -L /usr/<triple> kiln_run_npy`, and outputs
are compared on the host.

Node tests: those whose op family is elementwise, matmul/gemm, conv, pool or
normalization; tests using an op missing from `kiln ops` are skipped. Outputs must match
output_*.pb within |a-b| <= atol + rtol*|b| (the x86 tolerances, rtol 1e-3, atol 1e-5).

Real CNN: the PaddleOCR direction classifier (1x3x48x192), reference from ONNX Runtime on
the host (ort_run.js), passing when max|kiln-ort| / max|ort| <= --tol (1e-4, as on x86).

Prints a table per op, the failures, and as the last line `N passed, N failed, N skipped`.
With --expected-failures (lines `test_name  # reason`), exits 0 iff the failing node tests
are exactly the listed ones that ran (as for the x86 node tests) and the CNN did not fail;
without it, iff the node-test pass rate is at least --min-pass-rate and the CNN did not fail; 77 (skip) when qemu, the sysroot or the runner is missing.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "onnx_node_tests"))
sys.path.insert(0, os.path.join(HERE, "..", "real_models"))
import e2e_common as e2e  # noqa: E402
import node_tests  # noqa: E402
import run_real_models as real  # noqa: E402

SKIP_EXIT = 77

# Op families this harness covers; which of them run depends on `kiln ops`.
FAMILIES = {
    "elementwise": """Add Sub Mul Div Pow Max Min Sum Mean Relu Sigmoid Tanh Exp Log Sqrt
        Erf Neg Abs Reciprocal Floor Ceil Clip LeakyRelu HardSigmoid HardSwish Gelu Elu Selu
        Softplus Softsign PRelu Where Equal Less Greater LessOrEqual GreaterOrEqual Not And
        Or Xor Sign Sin Cos Cast""",
    "matmul": "MatMul Gemm",
    "conv": "Conv ConvTranspose",
    "pool": "MaxPool AveragePool GlobalAveragePool GlobalMaxPool LpPool",
    "normalization": """BatchNormalization LayerNormalization InstanceNormalization
        GroupNormalization LpNormalization""",
}
COVERED_OPS = {op for ops in FAMILIES.values() for op in ops.split()}

Result = collections.namedtuple("Result", "name op status reason")


class Emulator:
    """How to run a binary of the target: qemu-user with the target's sysroot."""

    def __init__(self, kiln, target, runner):
        r = e2e.run_command([kiln, "targets"], timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"`kiln targets` failed: {r.first_error_line()}")
        rows = {f[0]: f for f in (line.split() for line in r.stdout.splitlines()) if f}
        if target not in rows:
            raise RuntimeError(f"kiln has no target '{target}'")
        self.triple = rows[target][1]
        self.arch = self.triple.split("-")[0]
        self.sysroot = f"/usr/{self.triple}"
        self.qemu = next((shutil.which(n) for n in (f"qemu-{self.arch}",
                                                    f"qemu-{self.arch}-static")
                          if shutil.which(n)), None)
        self.runner = runner or os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(kiln))), self.arch, "kiln_run_npy")

    def missing(self):
        if not self.qemu:
            return f"qemu-{self.arch} not found (apt-get install qemu-user-static)"
        if not os.path.isdir(self.sysroot):
            return f"no sysroot {self.sysroot} (apt-get install libc6-dev-*-cross)"
        if not os.path.isfile(self.runner):
            return (f"no runner {self.runner} (install gcc-{self.arch}-linux-gnu and "
                    f"build the kiln_rt_{self.arch} target)")
        return None

    def run_model(self, so, inputs, outputs, timeout):
        argv = [self.qemu, "-L", self.sysroot, self.runner, so] + list(inputs)
        for p in outputs:
            argv += ["-o", p]
        return e2e.run_command(argv, timeout=timeout)


def compile_model(args, model, so, extra=()):
    argv = [args.kiln, "compile", model, "-o", so, "--target", args.target] + list(extra)
    if args.cpu:
        argv += ["--cpu", args.cpu]
    return e2e.run_command(argv, timeout=args.timeout)


def run_node_test(args, emu, supported, name, work_root):
    test_dir = os.path.join(args.data, name)
    model = onnx.load(os.path.join(test_dir, "model.onnx"))
    ops = node_tests.graph_ops(model.graph)
    op = node_tests.primary_op(name, ops)
    missing = sorted(set(o for o in ops if o not in supported))
    if missing:
        return Result(name, op, "skip", "unsupported: " + ", ".join(missing))
    if node_tests.non_tensor_values(model):
        return Result(name, op, "skip", "non-tensor inputs/outputs")
    work = os.path.join(work_root, name)
    os.makedirs(work, exist_ok=True)
    so = os.path.join(work, "model.so")
    r = compile_model(args, os.path.join(test_dir, "model.onnx"), so)
    if r.returncode != 0:
        return Result(name, op, "fail", "compile: " + r.first_error_line())
    for ds in node_tests.data_sets(test_dir):
        ds_name = os.path.basename(ds)
        inputs = []
        for k, pb in enumerate(e2e.numbered_files(ds, "input")):
            p = os.path.join(work, f"{ds_name}_input_{k}.npy")
            np.save(p, e2e.load_tensor(pb))
            inputs.append(p)
        expected = e2e.numbered_files(ds, "output")
        outs = [os.path.join(work, f"{ds_name}_output_{k}.npy") for k in range(len(expected))]
        r = emu.run_model(so, inputs, outs, args.timeout)
        if r.returncode != 0:
            return Result(name, op, "fail", f"run {ds_name}: " + r.first_error_line())
        for k, (got_path, ref_path) in enumerate(zip(outs, expected)):
            if not os.path.isfile(got_path):
                return Result(name, op, "fail", f"{ds_name} output {k}: not written")
            why = e2e.compare_elementwise(np.load(got_path), e2e.load_tensor(ref_path),
                                          args.rtol, args.atol)
            if why:
                return Result(name, op, "fail", f"{ds_name} output {k}: {why}")
    shutil.rmtree(work, ignore_errors=True)
    return Result(name, op, "pass", "")


def run_cnn(args, emu, work_root):
    """The PaddleOCR classifier against ONNX Runtime on the host."""
    name, filename, make_inputs = real.MODELS[0]
    label = f"real:{name}"
    model = os.path.join(args.models_dir, filename)
    if not os.path.isfile(model):
        return Result(label, "CNN", "skip", f"missing {model} (test/e2e/models/fetch_models.sh)")
    work = os.path.join(work_root, label.replace(":", "_"))
    os.makedirs(work, exist_ok=True)
    arrays = make_inputs(np.random.default_rng(real.SEED))
    inputs = []
    for k, a in enumerate(arrays):
        inputs.append(os.path.join(work, f"input_{k}.npy"))
        np.save(inputs[-1], a)
    r, refs = e2e.ort_run(model, inputs, os.path.join(work, "ort"), ort_dir=args.ort_dir,
                          extra=["--opt-level", "disabled"], timeout=args.timeout)
    if r.returncode != 0:
        return Result(label, "CNN", "skip", f"no ONNX Runtime reference: {r.first_error_line()}")
    so = os.path.join(work, "model.so")
    r = compile_model(args, model, so, real.input_shape_flags(model, arrays))
    if r.returncode != 0:
        return Result(label, "CNN", "fail", "compile: " + r.first_error_line())
    outs = [os.path.join(work, f"output_{k}.npy") for k in range(len(refs))]
    r = emu.run_model(so, inputs, outs, args.timeout * 4)
    if r.returncode != 0:
        return Result(label, "CNN", "fail", "run: " + r.first_error_line())
    worst = 0.0
    for k, (ref_path, out_path) in enumerate(zip(refs, outs)):
        ref, got = np.load(ref_path), np.load(out_path)
        if got.shape != ref.shape or got.dtype != ref.dtype:
            return Result(label, "CNN", "fail", f"output {k}: {got.dtype}{list(got.shape)} "
                          f"!= {ref.dtype}{list(ref.shape)}")
        worst = max(worst, e2e.relative_error(got, ref)[1])
    if not worst <= args.tol:
        return Result(label, "CNN", "fail", f"max rel err {worst:.3g} > {args.tol:g}")
    return Result(label, "CNN", "pass", f"max rel err {worst:.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default="aarch64")
    ap.add_argument("--cpu", default=None, help="--cpu for kiln compile")
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--runner", default=None, help="default: build/<arch>/kiln_run_npy")
    ap.add_argument("--data", default=node_tests.DEFAULT_DATA)
    ap.add_argument("--filter", default=None, help="regex on the node test name")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--expected-failures", metavar="FILE",
                    help="node tests expected to fail, `name  # reason` per line")
    ap.add_argument("--min-pass-rate", type=float, default=0.8, help="of attempted node tests")
    ap.add_argument("--tol", type=float, default=1e-4, help="CNN max relative error")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per command")
    ap.add_argument("--no-node-tests", action="store_true")
    ap.add_argument("--no-cnn", action="store_true")
    ap.add_argument("--ort-dir", default=os.path.join(e2e.REPO_ROOT, "build", "ort"))
    ap.add_argument("--models-dir", default=os.path.join(e2e.REPO_ROOT, "test", "e2e",
                                                         "models", "cache"))
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()

    try:
        emu = Emulator(args.kiln, args.target, args.runner)
        supported = e2e.supported_ops(args.kiln)
        expected = (node_tests.read_expected_failures(args.expected_failures)
                    if args.expected_failures else None)
    except (RuntimeError, OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    why = emu.missing()
    if why:
        print(f"skipped: {why}")
        return SKIP_EXIT
    print(f"target {args.target} ({emu.triple}) under {emu.qemu} -L {emu.sysroot}")

    names = []
    if not args.no_node_tests:
        rx = re.compile(args.filter) if args.filter else None
        for n in node_tests.list_tests(args.data):
            if rx and not rx.search(n):
                continue
            m = onnx.load(os.path.join(args.data, n, "model.onnx"), load_external_data=False)
            if node_tests.primary_op(n, node_tests.graph_ops(m.graph)) in COVERED_OPS:
                names.append(n)

    work_root = tempfile.mkdtemp(prefix=f"kiln-{args.target}-tests-")
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_node_test, args, emu, supported, n, work_root)
                   for n in names]
        if not args.no_cnn:
            futures.append(pool.submit(run_cnn, args, emu, work_root))
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            results.append(r)
            if args.verbose:
                print(f"{r.status.upper():4s} {r.name} {r.reason}".rstrip(), flush=True)
    results.sort(key=lambda r: r.name)

    by_op = collections.defaultdict(collections.Counter)
    for r in results:
        by_op[r.op][r.status] += 1
    width = max([len("op")] + [len(op) for op in by_op])
    print(f"{'op':<{width}}  {'passed':>6}  {'failed':>6}  {'skipped':>7}")
    for op in sorted(by_op):
        c = by_op[op]
        print(f"{op:<{width}}  {c['pass']:>6}  {c['fail']:>6}  {c['skip']:>7}")
    failures = [r for r in results if r.status == "fail"]
    if failures:
        print(f"\nfailures ({len(failures)}):")
        for r in failures:
            print(f"  {r.name}: {r.reason}")
        print(f"\nwork dir: {work_root}")
    else:
        shutil.rmtree(work_root, ignore_errors=True)
    for r in results:
        if r.op == "CNN":
            print(f"\n{r.name}: {r.status} {r.reason}".rstrip())
    passed = sum(r.status == "pass" for r in results)
    skipped = sum(r.status == "skip" for r in results)
    node = [r for r in results if r.op != "CNN" and r.status != "skip"]
    rate = sum(r.status == "pass" for r in node) / len(node) if node else 0.0
    cnn_failed = any(r.op == "CNN" and r.status == "fail" for r in results)
    if expected is not None:
        print(f"\nnode-test pass rate: {100 * rate:.1f}%")
        node_ok = node_tests.check_expected_failures(
            [r for r in results if r.op != "CNN"], expected, args.expected_failures)
    else:
        if node:
            print(f"\nnode-test pass rate: {100 * rate:.1f}% "
                  f"(minimum {100 * args.min_pass_rate:.1f}%)")
        node_ok = not node or rate >= args.min_pass_rate
    print(f"\n{passed} passed, {len(failures)} failed, {skipped} skipped")
    ok = passed and node_ok and not cnn_failed
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
