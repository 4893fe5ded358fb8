#!/usr/bin/python3
"""A sample of ONNX node tests through a sanitized kiln_rt.

    run_sanitized_e2e.py --kiln build/bin/kiln --runner build-asan/bin/kiln_run_npy
        [--work DIR] [--test NAME ...]

Each model is compiled by the normal compiler (its code is not instrumented),
then run by kiln_run_npy from a KILN_SANITIZE=ON build, so ASan and UBSan watch
the runtime: model loading, argument checks, the arena, the thread pool and
the kernels' calls into it. Outputs must match the test's expected outputs as
in the node suite (|a-b| <= atol + rtol*|b|). Any sanitizer report aborts the
runner, and the test fails.
"""

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "tools"))
import e2e_common as e2e  # noqa: E402

NODE_DIR = "/usr/share/libonnx-testdata/data/node"

# Small, fast to compile, and covering the runtime paths that matter: conv and
# pooling windows, contractions, broadcasting, reductions, a recurrent loop
# with state, data movement with run-time indices, more than one input.
DEFAULT_TESTS = [
    "test_conv_with_strides_padding",
    "test_maxpool_2d_pads",
    "test_matmul_3d",
    "test_gemm_all_attributes",
    "test_add_bcast",
    "test_where_example",
    "test_reduce_mean_keepdims_random",
    "test_softmax_axis_1",
    "test_lstm_defaults",
    "test_gather_2d_indices",
    "test_resize_upsample_scales_linear",
]


def is_sanitized(path):
    """True if the binary carries the ASan runtime or its instrumentation."""
    with open(path, "rb") as f:
        return b"__asan_" in f.read()


def run_one(args, name, work):
    test_dir = os.path.join(NODE_DIR, name)
    data_dir = os.path.join(test_dir, "test_data_set_0")
    model_so = os.path.join(work, "model.so")
    r = e2e.run_command([args.kiln, "compile", os.path.join(test_dir, "model.onnx"),
                         "-o", model_so], timeout=args.timeout)
    if r.returncode != 0:
        return f"kiln compile: {r.first_error_line()}"

    argv = [args.runner, model_so]
    for i, pb in enumerate(e2e.numbered_files(data_dir, "input")):
        npy = os.path.join(work, f"input_{i}.npy")
        e2e.save_tensor(npy, e2e.load_tensor(pb))
        argv.append(npy)
    expected = e2e.numbered_files(data_dir, "output")
    outputs = [os.path.join(work, f"output_{i}.npy") for i in range(len(expected))]
    for out in outputs:
        argv += ["-o", out]
    r = e2e.run_command(argv, timeout=args.timeout)
    if r.returncode != 0:
        # A sanitizer report is long; show all of it.
        return f"kiln_run_npy exit {r.returncode}:\n{r.stderr}{r.stdout}"
    for i, (out, ref) in enumerate(zip(outputs, expected)):
        why = e2e.compare_elementwise(e2e.load_tensor(out), e2e.load_tensor(ref),
                                      args.rtol, args.atol)
        if why:
            return f"output {i}: {why}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln", required=True, help="the normal kiln compiler")
    ap.add_argument("--runner", required=True, help="kiln_run_npy of a KILN_SANITIZE build")
    ap.add_argument("--test", action="append", help="node test name (repeatable)")
    ap.add_argument("--work", help="keep the files here instead of a temporary folder")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()

    if not is_sanitized(args.runner):
        print(f"{args.runner} is not built with -fsanitize=address", file=sys.stderr)
        return 2
    env_defaults = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1",
                    "UBSAN_OPTIONS": "print_stacktrace=1"}
    for key, value in env_defaults.items():
        os.environ.setdefault(key, value)

    work_root = args.work or tempfile.mkdtemp(prefix="kiln-sanitized-e2e-")
    failures = 0
    tests = args.test or DEFAULT_TESTS
    for name in tests:
        work = os.path.join(work_root, name)
        os.makedirs(work, exist_ok=True)
        why = run_one(args, name, work)
        print(f"{'FAIL' if why else 'ok  '} {name}" + (f": {why}" if why else ""), flush=True)
        failures += bool(why)
    if not args.work:
        shutil.rmtree(work_root, ignore_errors=True)
    print(f"{len(tests) - failures}/{len(tests)} passed under ASan+UBSan")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
