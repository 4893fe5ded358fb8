#!/usr/bin/python3
"""INT8 against fp32: kiln's QDQ libraries, kiln fp32 and ONNX Runtime, side by side.

    /usr/bin/python3 bench/quantized_bench.py [--models resnet50,mobilenet_v2]
        [--threads 1] [--repeats 3] [--iters 10] [--eval 200] [--work-dir DIR]

Each torchvision model (seeded random weights, opset 17, 1x3x224x224) is
quantized by `kiln quantize` (per-channel minmax, 16 calibration samples of
Gaussian noise: synthetic, there are no images here), then compiled by kiln
twice with --cpu native: the fp32 model and the QDQ model (integer products
where the CPU has an 8-bit dot product). Timed, interleaved per repeat at the
same thread count: kiln fp32, kiln INT8, ONNX Runtime on the fp32 model and
ONNX Runtime on the same QDQ file (all graph optimisations: ORT runs it with
its own integer kernels). Accuracy: `kiln check` compares kiln's INT8 library
with the fp32 model (run by kiln) over --eval synthetic inputs: top-1
agreement and max relative error. Prints a Markdown table.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import run_bench as rb  # noqa: E402
import torchvision_bench as tb  # noqa: E402


def samples(directory, count, seed):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(count):
        path = os.path.join(directory, f"{i:04d}.npy")
        if not os.path.isfile(path):
            np.save(path, rng.standard_normal((1, 3, 224, 224)).astype(np.float32))


def interleave(jobs, series, repeats):
    """Runs the (name, job) pairs `repeats` times, alternating their order, into
    `series` (name -> list of ms); returns the medians (None where none ran)."""
    for r in range(repeats):
        for who, job in (jobs if r % 2 == 0 else list(reversed(jobs))):
            value, _ = job()
            if value is not None:
                series[who].append(value)
    return {k: statistics.median(v) if v else None for k, v in series.items()}


def parse_args(doc):
    """The options of the benchmarks that compare a kiln variant of the torchvision
    models with their fp32 library (this one and precision_bench.py)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--models", default="resnet50,mobilenet_v2")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--eval", type=int, default=200)
    ap.add_argument("--work-dir", default=None)
    rb.add_model_tool_args(ap)
    return ap.parse_args()


def main():
    args = parse_args(__doc__)
    work = args.work_dir or tempfile.mkdtemp(prefix="kiln-quantized-")
    os.makedirs(work, exist_ok=True)
    tools, _ = rb.build_helpers(args, work)
    calib, evals = os.path.join(work, "calib"), os.path.join(work, "eval")
    samples(calib, 16, 1)
    samples(evals, args.eval, 2)
    x_path = os.path.join(calib, "0000.npy")
    threads = [int(t) for t in args.threads.split(",")]
    print(f"machine: {rb.machine_info().get('model', '?')}", flush=True)
    rows = []
    for name in [m for m in args.models.split(",") if m]:
        fp32 = os.path.join(work, name + ".onnx")
        qdq = os.path.join(work, name + ".int8.onnx")
        if not os.path.isfile(fp32):
            tb.export(name, fp32)
        rc, out, err, _, _ = rb.run([args.kiln, "quantize", fp32, "--calib", calib, "-o", qdq,
                                     "--per-channel"], timeout=args.compile_timeout)
        if rc != 0:
            rows.append((name, f"quantize failed: {rb.first_error(rc, out, err)}"))
            continue
        libs = {}
        for tag, model in (("fp32", fp32), ("int8", qdq)):
            so = os.path.join(work, f"{name}.{tag}.so")
            ok, msg = rb.compile_model(args, model, so)[:2]
            if not ok:
                rows.append((name, f"{tag} compile failed: {msg}"))
                break
            libs[tag] = so
        if len(libs) < 2:
            continue
        report = os.path.join(work, name + ".check.json")
        rc, out, err, _, _ = rb.run([args.kiln, "check", fp32, libs["int8"], "--inputs", evals,
                                     "--json", report], timeout=args.run_timeout * 4)
        check = json.load(open(report)) if rc == 0 and os.path.isfile(report) else {}
        for t in threads:
            series = {k: [] for k in ("kiln fp32", "kiln int8", "ORT fp32", "ORT int8")}
            jobs = [("kiln fp32", lambda: rb.kiln_job(tools, libs["fp32"], t, args.iters, args)),
                    ("kiln int8", lambda: rb.kiln_job(tools, libs["int8"], t, args.iters, args)),
                    ("ORT fp32", lambda: rb.ort_job(fp32, [x_path], t, args.iters, args)),
                    ("ORT int8", lambda: rb.ort_job(qdq, [x_path], t, args.iters, args))]
            med = interleave(jobs, series, args.repeats)
            rows.append((name, t, med, check))
            print(f"{name} {t}t: " + ", ".join(f"{k} {v:.2f} ms" for k, v in med.items()
                                              if v is not None), flush=True)
    print()
    print("| model | threads | kiln fp32 ms | kiln INT8 ms | INT8 speed-up | ORT fp32 ms | "
          "ORT INT8 ms | kiln INT8 / ORT INT8 | top-1 vs fp32 | max rel err |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        if len(row) == 2:
            print(f"| {row[0]} | {row[1]} |" + " |" * 8)
            continue
        name, t, m, check = row
        f = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.2f}"  # noqa: E731
        out = (check.get("outputs") or [{}])[0]
        agree = (f"{out['top1_agree']}/{out['top1_rows']}" if "top1_agree" in out else "-")
        err = out.get("max_rel_error")
        print(f"| {name} | {t} | {f(m['kiln fp32'])} | {f(m['kiln int8'])} | "
              f"{ratio(m['kiln fp32'], m['kiln int8'])}x | {f(m['ORT fp32'])} | "
              f"{f(m['ORT int8'])} | {ratio(m['kiln int8'], m['ORT int8'])} | {agree} | "
              f"{'-' if err is None else f'{err:.2g}'} |")


if __name__ == "__main__":
    sys.exit(main())
