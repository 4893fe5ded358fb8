#!/usr/bin/python3
"""bf16 and fp16 against fp32: kiln's `--precision` libraries and ONNX Runtime, side by side.

    /usr/bin/python3 bench/precision_bench.py [--models resnet50,mobilenet_v2]
        [--threads 1] [--repeats 3] [--iters 10] [--eval 200] [--work-dir DIR]

Each torchvision model (seeded random weights, opset 17, 1x3x224x224) is compiled by
kiln with --cpu native four times: fp32, bf16 (AMX tiles where the CPU has them), bf16
with the tiles turned off (AVX-512 BF16 register tiles; only where the CPU has AMX, to
show both kernels) and fp16 (f16 weights widened in the fp32 kernel). Timed, interleaved
per repeat at the same thread count, with ONNX Runtime on the fp32 model. Accuracy:
`kiln check` compares each reduced library with the fp32 model (run by kiln) over --eval
synthetic inputs (Gaussian noise: there are no images here): top-1 agreement and max
relative error. Prints a Markdown table.
"""

import json
import os
import sys
import tempfile

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import quantized_bench as qb  # noqa: E402
import run_bench as rb  # noqa: E402
import torchvision_bench as tb  # noqa: E402

sys.path.insert(0, os.path.join(rb.REPO_ROOT, "test", "e2e", "tools"))
import e2e_common as e2e  # noqa: E402

NO_TILES = ["--features=-amx-tile,-amx-int8,-amx-bf16"]


def main():
    args = qb.parse_args(__doc__)
    work = args.work_dir or tempfile.mkdtemp(prefix="kiln-precision-")
    os.makedirs(work, exist_ok=True)
    tools, _ = rb.build_helpers(args, work)
    evals = os.path.join(work, "eval")
    qb.samples(evals, args.eval, 2)
    x_path = os.path.join(evals, "0000.npy")
    flags = e2e.cpu_flags()
    variants = [("fp32", [])]
    if "avx512_bf16" in flags:
        variants.append(("bf16", ["--precision", "bf16"]))
        if "amx_bf16" in flags:
            variants.append(("bf16 no AMX", ["--precision", "bf16"] + NO_TILES))
    if "avx512f" in flags:
        variants.append(("fp16", ["--precision", "fp16"]))
    threads = [int(t) for t in args.threads.split(",")]
    print(f"machine: {rb.machine_info().get('model', '?')}; AMX: "
          f"{'yes' if 'amx_bf16' in flags else 'no'}", flush=True)
    rows = []
    for name in [m for m in args.models.split(",") if m]:
        onnx_path = os.path.join(work, name + ".onnx")
        if not os.path.isfile(onnx_path):
            tb.export(name, onnx_path)
        libs, checks = {}, {}
        for tag, extra in variants:
            so = os.path.join(work, f"{name}.{tag.replace(' ', '_')}.so")
            ok, msg = rb.compile_model(args, onnx_path, so, extra)[:2]
            if not ok:
                print(f"{name} {tag}: compile failed: {msg}", flush=True)
                continue
            libs[tag] = so
            if tag == "fp32":
                continue
            report = os.path.join(work, f"{name}.{tag.replace(' ', '_')}.check.json")
            rc, _, _, _, _ = rb.run([args.kiln, "check", onnx_path, so, "--inputs", evals,
                                     "--json", report], timeout=args.run_timeout * 4)
            checks[tag] = json.load(open(report)) if rc == 0 and os.path.isfile(report) else {}
        for t in threads:
            series = {tag: [] for tag in libs}
            series["ORT fp32"] = []
            jobs = [(tag, lambda so=so: rb.kiln_job(tools, so, t, args.iters, args))
                    for tag, so in libs.items()]
            jobs.append(("ORT fp32", lambda: rb.ort_job(onnx_path, [x_path], t, args.iters,
                                                         args)))
            med = qb.interleave(jobs, series, args.repeats)
            rows.append((name, t, med, checks))
            print(f"{name} {t}t: " + ", ".join(f"{k} {v:.2f} ms" for k, v in med.items()
                                              if v is not None), flush=True)
    print()
    print("| model | threads | precision | kiln ms | speed-up over kiln fp32 | "
          "kiln / ORT fp32 | top-1 vs fp32 | max rel err |")
    print("|---|---|---|---|---|---|---|---|")
    for name, t, med, checks in rows:
        base, ort = med.get("fp32"), med.get("ORT fp32")
        for tag, _ in variants:
            ms = med.get(tag)
            if ms is None:
                continue
            out = ((checks.get(tag) or {}).get("outputs") or [{}])[0]
            agree = (f"{out['top1_agree']}/{out['top1_rows']}" if "top1_agree" in out
                     else "-")
            err = out.get("max_rel_error")
            print(f"| {name} | {t} | {tag} | {ms:.2f} | "
                  f"{'-' if not base else f'{base / ms:.2f}x'} | "
                  f"{'-' if not ort else f'{ms / ort:.2f}'} | {agree} | "
                  f"{'-' if err is None else f'{err:.2g}'} |")
        if ort:
            print(f"| {name} | {t} | ORT fp32 | {ort:.2f} | - | 1.00 | - | - |")


if __name__ == "__main__":
    sys.exit(main())
