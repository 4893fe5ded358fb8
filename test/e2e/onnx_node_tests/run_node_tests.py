#!/usr/bin/python3
"""Runs the ONNX backend node tests through `kiln compile` and `kiln run`.

    /usr/bin/python3 test/e2e/onnx_node_tests/run_node_tests.py --kiln build/bin/kiln
        [--jobs 2] [--filter REGEX] [--every N] [--data /usr/share/libonnx-testdata/data/node]
        [--target T] [--cpu CPU] [--features +f,-g]
        [--expected-failures FILE | --min-pass-rate 0.8] [--list-failures FILE]
        [--output-format npy|pb] [--rtol 1e-3] [--atol 1e-5] [--timeout 300] [--verbose] [--keep]
        [--check-ptx PTXAS] [--emulate-device]

For each test directory: tests whose graph uses an op missing from `kiln ops` (or whose
inputs/outputs are sequences/optionals) are skipped. The others are compiled once
(tests run in parallel, --jobs) and run on every test_data_set_* with the input_*.pb files
in order; each output must match output_*.pb: same dtype and shape, floats within
|a-b| <= atol + rtol*|b| with NaN where the reference has NaN, everything else exact.

--target/--cpu/--features go to `kiln compile`; the library runs on this machine, so the
target must be of this machine's architecture (test/e2e/emulated/ runs others under qemu).
With --check-ptx PTXAS and a GPU target (--target sm_90), nothing runs: each test passes
when it compiles and PTXAS (CUDA's assembler) accepts its kernels for that chip. With
--emulate-device and a GPU target, the kernels run as host loops (`kiln compile
--emulate-device`) and are checked against the references like a CPU library.

Prints a table per op type, the failing tests with a short reason, the pass rate of the
attempted tests, and as the last line `N passed, N failed, N skipped`. With
--expected-failures (lines `test_name  # reason`), exits 0 iff the failing tests are
exactly the listed ones that ran: a new failure and a listed test that now passes both
fail the run. Without it, exits 0 iff the pass rate is at least --min-pass-rate (and at
least one test was attempted).
"""

import argparse
import collections
import concurrent.futures
import os
import shutil
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import e2e_common as e2e  # noqa: E402
import node_tests  # noqa: E402

Result = collections.namedtuple("Result", "name op status reason")  # status: pass/fail/skip


def run_test(args, supported, name, work_root):
    test_dir = os.path.join(args.data, name)
    try:
        model = onnx.load(os.path.join(test_dir, "model.onnx"))
    except Exception as e:  # noqa: BLE001 - any parse problem is a harness-level failure
        return Result(name, "?", "fail", f"cannot read model.onnx: {e}")
    ops = node_tests.graph_ops(model.graph)
    op = node_tests.primary_op(name, ops)
    missing = sorted(set(o for o in ops if o not in supported))
    if missing:
        return Result(name, op, "skip", "unsupported: " + ", ".join(missing))
    non_tensor = node_tests.non_tensor_values(model)
    if non_tensor:
        return Result(name, op, "skip", "unsupported: non-tensor value " + ", ".join(non_tensor))

    work = os.path.join(work_root, name)
    os.makedirs(work, exist_ok=True)
    so = os.path.join(work, "model.so")
    ptx = os.path.join(work, "model.ptx")
    r = e2e.run_command([args.kiln, "compile", os.path.join(test_dir, "model.onnx"), "-o", so]
                        + compile_flags(args) + (["--emit-ptx", ptx] if args.check_ptx else []),
                        timeout=args.timeout)
    if r.returncode != 0:
        return Result(name, op, "fail", "compile: " + r.first_error_line())
    # A model without kernels (all outputs empty) has no PTX to check.
    if args.check_ptx and os.path.getsize(ptx) > 0:
        r = e2e.run_command([args.check_ptx, f"-arch={args.target}", ptx, "-o", os.devnull],
                            timeout=args.timeout)
        if r.returncode != 0:
            return Result(name, op, "fail", "ptxas: " + r.first_error_line())
    if args.check_ptx:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return Result(name, op, "pass", "")

    sets = node_tests.data_sets(test_dir)
    if not sets:
        return Result(name, op, "fail", "no test_data_set_* directories")
    for ds in sets:
        ds_name = os.path.basename(ds)
        inputs = e2e.numbered_files(ds, "input")
        expected = e2e.numbered_files(ds, "output")
        outs = [os.path.join(work, f"{ds_name}_output_{k}.{args.output_format}")
                for k in range(len(expected))]
        argv = [args.kiln, "run", so]
        for p in inputs:
            argv += ["--input", p]
        for p in outs:
            argv += ["--output", p]
        r = e2e.run_command(argv, timeout=args.timeout)
        if r.returncode != 0:
            return Result(name, op, "fail", f"run {ds_name}: " + r.first_error_line())
        for k, (got_path, ref_path) in enumerate(zip(outs, expected)):
            if not os.path.isfile(got_path):
                return Result(name, op, "fail", f"{ds_name} output {k}: not written")
            try:
                got = e2e.load_tensor(got_path)
            except Exception as e:  # noqa: BLE001
                return Result(name, op, "fail", f"{ds_name} output {k}: unreadable ({e})")
            why = e2e.compare_elementwise(got, e2e.load_tensor(ref_path), args.rtol, args.atol)
            if why:
                return Result(name, op, "fail", f"{ds_name} output {k}: {why}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return Result(name, op, "pass", "")


def compile_flags(args):
    flags = []
    for name in ("target", "cpu", "features"):
        value = getattr(args, name)
        if value:
            flags += [f"--{name}", value]
    if args.emulate_device:
        flags.append("--emulate-device")
    return flags


def print_table(results):
    by_op = collections.defaultdict(lambda: collections.Counter())
    for r in results:
        by_op[r.op][r.status] += 1
    width = max([len("op")] + [len(op) for op in by_op])
    print(f"{'op':<{width}}  {'passed':>6}  {'failed':>6}  {'skipped':>7}")
    for op in sorted(by_op):
        c = by_op[op]
        print(f"{op:<{width}}  {c['pass']:>6}  {c['fail']:>6}  {c['skip']:>7}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--data", default=node_tests.DEFAULT_DATA)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default=None, help="regex on the test name")
    ap.add_argument("--every", type=int, default=1,
                    help="run every Nth test (in name order) of those the filter selects")
    ap.add_argument("--target", default=None, help="--target for kiln compile")
    ap.add_argument("--cpu", default=None, help="--cpu for kiln compile")
    ap.add_argument("--features", default=None, help="--features for kiln compile")
    ap.add_argument("--expected-failures", metavar="FILE", action="append",
                    help="the tests expected to fail, `name  # reason` per line "
                         "(repeatable: the union of the files)")
    ap.add_argument("--min-pass-rate", type=float, default=0.8)
    ap.add_argument("--list-failures", metavar="FILE", help="write failing test names here")
    ap.add_argument("--output-format", choices=["npy", "pb"], default="npy",
                    help="file type kiln run writes its outputs as")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per kiln command")
    ap.add_argument("--verbose", "-v", action="store_true", help="print each test's result")
    ap.add_argument("--show-skipped", action="store_true", help="list skipped tests and why")
    ap.add_argument("--keep", action="store_true", help="keep the work dir of passing tests")
    ap.add_argument("--check-ptx", metavar="PTXAS",
                    help="compile only, and check the kernels with this ptxas (GPU targets)")
    ap.add_argument("--emulate-device", action="store_true",
                    help="run a GPU target's kernels as host loops (no GPU needed)")
    args = ap.parse_args()
    if args.check_ptx and not (args.target or "").startswith("sm_"):
        print("error: --check-ptx needs a GPU target (--target sm_80, ...)", file=sys.stderr)
        return 2

    if not os.path.isdir(args.data):
        print(f"error: no test data at {args.data} (apt-get install libonnx-testdata)",
              file=sys.stderr)
        return 2
    try:
        supported = e2e.supported_ops(args.kiln)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    names = node_tests.list_tests(args.data, args.filter)[::max(1, args.every)]
    expected = None
    if args.expected_failures:
        try:
            expected = {}
            for path in args.expected_failures:
                expected.update(node_tests.read_expected_failures(path))
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    print("kiln compile flags: " + (" ".join(compile_flags(args)) or "(none)"), flush=True)

    work_root = tempfile.mkdtemp(prefix="kiln-node-tests-")
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_test, args, supported, n, work_root) for n in names]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            results.append(r)
            if args.verbose:
                print(f"{r.status.upper():4s} {r.name} {r.reason}".rstrip(), flush=True)
    results.sort(key=lambda r: r.name)

    print_table(results)
    failures = [r for r in results if r.status == "fail"]
    if failures:
        print(f"\nfailures ({len(failures)}):")
        for r in failures:
            print(f"  {r.name}: {r.reason}")
    if args.show_skipped:
        print("\nskipped:")
        for r in results:
            if r.status == "skip":
                print(f"  {r.name}: {r.reason}")
    if args.list_failures:
        with open(args.list_failures, "w") as f:
            for r in failures:
                f.write(r.name + "\n")
    if args.keep or failures:
        print(f"\nwork dir: {work_root}")
    else:
        shutil.rmtree(work_root, ignore_errors=True)

    passed = sum(r.status == "pass" for r in results)
    failed = len(failures)
    skipped = sum(r.status == "skip" for r in results)
    attempted = passed + failed
    rate = passed / attempted if attempted else 0.0
    if expected is not None:
        print(f"\npass rate: {100 * rate:.1f}% ({passed}/{attempted} attempted)")
        ok = node_tests.check_expected_failures(results, expected,
                                                " + ".join(args.expected_failures))
    else:
        print(f"\npass rate: {100 * rate:.1f}% ({passed}/{attempted} attempted; "
              f"minimum {100 * args.min_pass_rate:.1f}%)")
        ok = rate >= args.min_pass_rate
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if attempted and ok else 1


if __name__ == "__main__":
    sys.exit(main())
