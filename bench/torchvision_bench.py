#!/usr/bin/python3
"""Standard torchvision architectures: kiln against ONNX Runtime, side by side.

    /usr/bin/python3 bench/torchvision_bench.py [--models resnet50,densenet121,...]
        [--threads 1,2] [--repeats 3] [--iters 10] [--work-dir DIR] [--profile]

Each model is built by torchvision with seeded random weights (no download),
exported by torch.onnx at opset 17 with input 1x3x224x224, compiled by kiln
with --cpu native, checked against ONNX Runtime on one seeded input (max
relative error), then timed: kiln through kiln_bench and kiln_rt, ORT through
ort_run.js (CPU provider, all graph optimisations), the same thread count,
interleaved per repeat. Prints a Markdown table of medians and ratios
(kiln / ORT: below 1 means kiln is faster) and their geometric mean. With
--profile it also prints `kiln profile`'s ten slowest layers per model.
Needs python3-torch and python3-torchvision (Debian packages).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import run_bench as rb  # noqa: E402

DEFAULT_MODELS = ("resnet50,densenet121,efficientnet_b0,shufflenet_v2_x1_0,"
                  "convnext_tiny,mobilenet_v3_large,resnext50_32x4d,regnet_y_400mf")


def export(name, path):
    import torch
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    # torchvision zero-initializes some classifier heads (ViT's): the output
    # would be all zeros and the error check against ORT vacuous.
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                torch.nn.init.normal_(p, std=0.02)
    x = torch.randn(1, 3, 224, 224)
    # Not under no_grad: there torch's MultiheadAttention takes its fused fast
    # path, which has no ONNX export (vit_b_16).
    torch.onnx.export(model, x, path, opset_version=17, input_names=["x"],
                      output_names=["y"])


def max_rel_error(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--profile", action="store_true")
    rb.add_model_tool_args(ap)
    args = ap.parse_args()
    work = args.work_dir or tempfile.mkdtemp(prefix="kiln-torchvision-")
    os.makedirs(work, exist_ok=True)
    tools, _ = rb.build_helpers(args, work)
    threads = [int(t) for t in args.threads.split(",")]
    rows, ratios = [], {t: [] for t in threads}
    print(f"machine: {rb.machine_info().get('model', '?')}", flush=True)
    for name in [m for m in args.models.split(",") if m]:
        onnx_path = os.path.join(work, name + ".onnx")
        so = os.path.join(work, name + ".so")
        x_path = os.path.join(work, name + "_x.npy")
        try:
            if not os.path.isfile(onnx_path):
                export(name, onnx_path)
        except Exception as e:  # noqa: BLE001 - report and go on
            rows.append((name, f"export failed: {e}", {}))
            continue
        np.save(x_path, np.random.default_rng(0).standard_normal((1, 3, 224, 224))
                .astype(np.float32))
        # A library newer than both the model and the compiler is reused.
        fresh = os.path.isfile(so) and os.path.getmtime(so) > max(
            os.path.getmtime(onnx_path), os.path.getmtime(args.kiln))
        ok, msg, wall = (True, "", 0.0) if fresh else \
            rb.compile_model(args, onnx_path, so)[:3]
        if not ok:
            rows.append((name, f"compile failed: {msg}", {}))
            continue
        # Numerics once, against ORT on the same input.
        out_dir = os.path.join(work, name + "_ort")
        rb.run(["node", os.path.join(rb.REPO_ROOT, "test", "e2e", "tools", "ort_run.js"),
                onnx_path, "--input", x_path, "--output-dir", out_dir]
               + (["--ort-dir", args.ort_dir] if args.ort_dir else []), timeout=600)
        y_kiln = os.path.join(work, name + "_kiln.npy")
        rb.run([args.kiln, "run", so, "--input", x_path, "--output", y_kiln], timeout=600)
        try:
            err = max_rel_error(np.load(y_kiln), np.load(os.path.join(out_dir, "output_0.npy")))
        except (OSError, ValueError) as e:
            err = f"no output ({e})"
        timings, apart = {}, []
        for t in threads:
            if t > 1:
                apart.append(rb.core_round_trip_ns(tools))
            k, o = [], []
            for r in range(args.repeats):
                jobs = [("k", lambda: rb.kiln_job(tools, so, t, args.iters, args)),
                        ("o", lambda: rb.ort_job(onnx_path, [x_path], t, args.iters, args))]
                if r % 2:
                    jobs.reverse()
                for who, job in jobs:
                    value, _ = job()
                    if value is not None:
                        (k if who == "k" else o).append(value)
            if t > 1:
                apart.append(rb.core_round_trip_ns(tools))
            if k and o:
                km, om = statistics.median(k), statistics.median(o)
                timings[t] = (km, om)
                ratios[t].append(km / om)
        # Two-thread times depend on how far apart the host placed the cores.
        apart = [a for a in apart if a is not None]
        rows.append((name, err, timings, wall, max(apart) if apart else None))
        print(f"{name}: compile {wall:.1f} s{' (reused)' if fresh else ''}, max rel error vs ORT "
              f"{err if isinstance(err, str) else f'{err:.1e}'}, "
              + ", ".join(f"{t}t kiln {v[0]:.2f} ms ORT {v[1]:.2f} ms ({v[0] / v[1]:.2f}x)"
                          for t, v in timings.items())
              + (f", cores {rows[-1][4]:.0f} ns apart" if rows[-1][4] else ""), flush=True)
        if args.profile:
            pso = os.path.join(work, name + "_profile.so")
            rb.run([args.kiln, "compile", onnx_path, "-o", pso, "--cpu", "native",
                    "--profile"], timeout=args.compile_timeout)
            p = subprocess.run([args.kiln, "profile", pso, "--input", x_path, "--iters", "5",
                                "--threads", "1"], capture_output=True, text=True)
            print("\n".join(p.stdout.splitlines()[:12]), flush=True)

    print()
    multi = any(t > 1 for t in threads)
    head = "| model | max rel err vs ORT | " + " | ".join(
        f"{t} thread{'s' if t > 1 else ''}: kiln / ORT ms (ratio)" for t in threads) + " |"
    head += " cores apart (ns) |" if multi else ""
    print(head)
    print("|" + "---|" * (2 + len(threads) + multi))
    for row in rows:
        name, err = row[0], row[1]
        if len(row) < 4:
            print(f"| {name} | {err} |" + " - |" * (len(threads) + multi))
            continue
        timings = row[2]
        cells = [f"{timings[t][0]:.2f} / {timings[t][1]:.2f} ({timings[t][0] / timings[t][1]:.2f}x)"
                 if t in timings else "-" for t in threads]
        if multi:
            cells.append(f"{row[4]:.0f}" if row[4] else "-")
        e = err if isinstance(err, str) else f"{err:.1e}"
        print(f"| {name} | {e} | " + " | ".join(cells) + " |")
    gm = [f"{rb.geomean(ratios[t]):.2f}x" if ratios[t] else "-" for t in threads]
    print("| geometric mean | | " + " | ".join(gm) + (" | |" if multi else " |"))


if __name__ == "__main__":
    main()
