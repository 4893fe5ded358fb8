#!/usr/bin/python3
"""Models with symbolic dims: one generic library, specializations, a static build, ORT.

    /usr/bin/python3 bench/dynamic_shapes_bench.py [--kiln build/bin/kiln]
        [--ort-dir build/ort] [--threads 1] [--iters 10] [--repeats 3] [--work-dir DIR]

For the PP-OCR recogniser as shipped (input ?x3x48x?) at widths 160, 320 and 640, the
detector (?x3x?x?) at 320x320 and a torch TransformerEncoder exported with a dynamic batch
and sequence length at 128 and 200 tokens: kiln's library compiled from the file as is
(generic code for every size), the same with `--specialize` for widths 320 and 640, the
detector's 320x320 and 128 tokens (one library: those sizes take specialized code, others
the generic code), a
library compiled for the size alone (`--input-shape`), and ONNX Runtime on the same file
and input. Times are medians of --repeats interleaved rounds of --iters runs (kiln through
kiln_rt's Python loader, ORT through ort_run.js --bench), at --threads threads.
Prints a Markdown table.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(REPO, "test", "e2e", "models", "cache")

# model file, library flags, input shapes
CASES = [
    ("ch_PP-OCRv4_rec_infer.onnx", ["--specialize", "x=1x3x48x320", "--specialize",
                                    "x=1x3x48x640"],
     [(1, 3, 48, 160), (1, 3, 48, 320), (1, 3, 48, 640)]),
    ("ch_PP-OCRv4_det_infer.onnx", ["--specialize", "x=1x3x320x320"], [(1, 3, 320, 320)]),
    # Exported here (seeded weights): 2 layers, d_model 256, 4 heads, dynamic batch and
    # sequence length.
    ("transformer_encoder.onnx", ["--specialize", "x=1x128x256"],
     [(1, 128, 256), (1, 200, 256)]),
]


def export_transformer(path):
    import torch
    torch.manual_seed(0)
    enc = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True), 2,
        enable_nested_tensor=False).eval()
    torch.onnx.export(enc, (torch.randn(1, 128, 256),), path, opset_version=14,
                      input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch", 1: "seq"}})


def kiln_ms(lib, x, threads, iters):
    """Median ms of `iters` runs of `lib` on x, in a child process (one loader each)."""
    code = f"""
import os, sys, time, statistics
sys.path.insert(0, {os.path.join(REPO, 'runtime', 'python')!r})
import kiln_rt, numpy as np
kiln_rt.set_num_threads({threads})
m = kiln_rt.load({lib!r}); x = np.load({x!r})
for _ in range(3): m.run(x)
t = []
for _ in range({iters}):
    t0 = time.perf_counter(); m.run(x); t.append((time.perf_counter() - t0) * 1e3)
print(statistics.median(t))
"""
    env = dict(os.environ, KILN_RT_LIBRARY=os.path.join(REPO, "build", "lib", "libkiln_rt.so"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return float(r.stdout.strip()) if r.returncode == 0 else None


def ort_ms(model, x, threads, iters, ort_dir):
    r = subprocess.run(["node", os.path.join(REPO, "test", "e2e", "tools", "ort_run.js"), model,
                        "--input", x, "--threads", str(threads), "--bench", str(iters),
                        "--warmup", "3", "--opt-level", "all", "--ort-dir", ort_dir],
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("median_ms"):
            return float(line.split()[1])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(REPO, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=os.path.join(REPO, "build", "ort"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work-dir", default=None)
    a = ap.parse_args()
    a.ort_dir = os.path.abspath(a.ort_dir)
    work = a.work_dir or tempfile.mkdtemp(prefix="kiln-dynamic-bench-")
    os.makedirs(work, exist_ok=True)
    rows = []
    for name, spec_flags, shapes in CASES:
        model = os.path.join(MODELS, name)
        if name == "transformer_encoder.onnx":
            model = os.path.join(work, name)
            export_transformer(model)
        stem = os.path.join(work, name.split(".")[0])
        libs = {"generic": (stem + ".generic.so", []),
                "specialized": (stem + ".specialized.so", spec_flags)}
        compile_s = {}
        for label, (so, flags) in libs.items():
            t0 = time.monotonic()
            subprocess.run([a.kiln, "compile", model, "-o", so, "--cpu", "native"] + flags,
                           check=True)
            compile_s[label] = time.monotonic() - t0
        for shape in shapes:
            x = f"{stem}.{'x'.join(map(str, shape))}.npy"
            np.save(x, np.random.default_rng(0).random(shape, dtype=np.float32))
            static = f"{stem}.{'x'.join(map(str, shape))}.so"
            subprocess.run([a.kiln, "compile", model, "-o", static, "--cpu", "native",
                            "--input-shape", "x=" + "x".join(map(str, shape))], check=True)
            times = {k: [] for k in ("generic", "specialized", "static", "ort")}
            for rep in range(a.repeats):
                jobs = [("generic", lambda: kiln_ms(libs["generic"][0], x, a.threads, a.iters)),
                        ("specialized",
                         lambda: kiln_ms(libs["specialized"][0], x, a.threads, a.iters)),
                        ("static", lambda: kiln_ms(static, x, a.threads, a.iters)),
                        ("ort", lambda: ort_ms(model, x, a.threads, a.iters, a.ort_dir))]
                for label, job in (jobs if rep % 2 == 0 else jobs[::-1]):
                    t = job()
                    if t is not None:
                        times[label].append(t)
            med = {k: statistics.median(v) if v else float("nan") for k, v in times.items()}
            rows.append((name.split(".")[0], shape, med))
            print(f"{name} {shape}: {med}", file=sys.stderr, flush=True)
    print("| model | input | kiln generic ms | kiln with --specialize ms | kiln --input-shape ms "
          "| ORT ms | generic / ORT | specialized / ORT |")
    print("|---|---|---|---|---|---|---|---|")
    for name, shape, m in rows:
        print(f"| {name} | {'x'.join(map(str, shape))} | {m['generic']:.2f} | "
              f"{m['specialized']:.2f} | {m['static']:.2f} | {m['ort']:.2f} | "
              f"{m['generic'] / m['ort']:.2f}x | {m['specialized'] / m['ort']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
