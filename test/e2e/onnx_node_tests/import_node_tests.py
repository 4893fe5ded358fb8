#!/usr/bin/python3
"""Imports the ONNX backend node tests into kiln.graph and verifies the result.

    /usr/bin/python3 test/e2e/onnx_node_tests/import_node_tests.py --kiln build/bin/kiln
        --kiln-opt build/bin/kiln-opt [--ops-file LIST] [--filter REGEX] [--jobs 2]
        [--data /usr/share/libonnx-testdata/data/node] [--list-failures FILE]

For every node test whose ops are all in the op list (--ops-file: names separated by
whitespace or newlines, '#' comments; default: the kiln.graph dialect's op list), runs
`kiln import model.onnx > x.mlir` and `kiln-opt --verify-each x.mlir`. Tests with sequence
or optional inputs/outputs are left out. Prints each failure with the first line of its
error and `imported N / attempted M`; exits 0 iff every attempted test imported.
"""

import argparse
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


def import_test(args, name, work_root):
    """Returns None on success, else a one-line reason."""
    model = os.path.join(args.data, name, "model.onnx")
    mlir = os.path.join(work_root, name + ".mlir")
    r = e2e.run_command([args.kiln, "import", model], timeout=args.timeout)
    if r.returncode != 0:
        return "import: " + r.first_error_line()
    with open(mlir, "w") as f:
        f.write(r.stdout)
    r = e2e.run_command([args.kiln_opt, "--verify-each", mlir, "-o", os.devnull],
                        timeout=args.timeout)
    if r.returncode != 0:
        return "verify: " + r.first_error_line()
    os.remove(mlir)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--kiln-opt", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln-opt"))
    ap.add_argument("--ops-file", help="op list (default: the kiln.graph dialect's ops)")
    ap.add_argument("--data", default=node_tests.DEFAULT_DATA)
    ap.add_argument("--filter", default=None, help="regex on the test name")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--list-failures", metavar="FILE", help="write failing test names here")
    ap.add_argument("--verbose", "-v", action="store_true", help="list the attempted tests")
    args = ap.parse_args()

    if not os.path.isdir(args.data):
        print(f"error: no test data at {args.data} (apt-get install libonnx-testdata)",
              file=sys.stderr)
        return 2
    ops = set(node_tests.read_ops_file(args.ops_file) if args.ops_file else node_tests.DIALECT_OPS)

    attempted = []
    for name in node_tests.list_tests(args.data, args.filter):
        model = onnx.load(os.path.join(args.data, name, "model.onnx"), load_external_data=False)
        if not set(node_tests.graph_ops(model.graph)) <= ops:
            continue
        if node_tests.non_tensor_values(model):
            continue
        attempted.append(name)

    work_root = tempfile.mkdtemp(prefix="kiln-import-tests-")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        reasons = list(pool.map(lambda n: import_test(args, n, work_root), attempted))
    failures = [(n, why) for n, why in zip(attempted, reasons) if why]

    if args.verbose:
        for n, why in zip(attempted, reasons):
            print(f"{'FAIL' if why else 'OK  '} {n}")
    if failures:
        print(f"failures ({len(failures)}):")
        for n, why in failures:
            print(f"  {n}: {why}")
        print(f"outputs of failing tests kept in {work_root}")
    else:
        shutil.rmtree(work_root, ignore_errors=True)
    if args.list_failures:
        with open(args.list_failures, "w") as f:
            f.writelines(n + "\n" for n, _ in failures)
    imported = len(attempted) - len(failures)
    print(f"imported {imported} / attempted {len(attempted)}")
    return 0 if attempted and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
