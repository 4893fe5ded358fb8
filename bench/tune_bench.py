#!/usr/bin/python3
"""Autotuning benchmarks: tuned against default latency per model, and how
many trials the model-guided and the random search need.

    /usr/bin/python3 bench/tune_bench.py [--models cls,det,encoder,conv,resnet18]
        [--trials 32] [--threads 1] [--iters 20] [--repeats 7]
        [--search-model resnet50] [--search-trials 48] [--work-dir DIR]
        [--out FILE.md]

(a) Each model is tuned with the model-guided search (`kiln tune --search
    model --trials N --threads T --cpu native`) into one database shared by
    the models in order (later models start from the earlier ones' records,
    as a user's database would), compiled with and without `--tuning-db`,
    and both libraries are timed side by side with kiln_bench (interleaved
    repeats, alternating which goes first); ratio = tuned / default latency.
(b) The conv and MatMul tasks of --search-model are tuned twice more from
    empty databases, once with random and once with model-guided search,
    --search-trials each. Per task: the best time over both searches, and the
    first trial at which each search came within 5 % of it ("-" if never).

Models: cls, det, encoder are the real models of test/e2e (static-shape
copies); conv is bench/make_models.py's three 3x3 convs; any other name
(resnet18, vgg11, ...) is a torchvision architecture with seeded random weights, exported at
1x3x224x224 (python3-torchvision; no downloads).
"""

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "test", "e2e", "real_models"))
import run_real_models as real_models  # noqa: E402

REAL = {name: (filename, make) for name, filename, make in real_models.MODELS}
MODEL_CACHE = os.path.join(REPO, "test", "e2e", "models", "cache")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return r.stdout


def prepare(name, work):
    """A static-shape ONNX file for the model `name`."""
    path = os.path.join(work, name + ".onnx")
    if os.path.exists(path):
        return path
    if name in REAL:
        filename, make = REAL[name]
        arrays = make(np.random.default_rng(0))
        arrays = arrays if isinstance(arrays, (list, tuple)) else [arrays]
        real_models.with_static_inputs(os.path.join(MODEL_CACHE, filename), arrays, path)
    elif name == "conv":
        run([sys.executable, os.path.join(BENCH_DIR, "make_models.py"), work])
        os.replace(os.path.join(work, "conv3x3_64.onnx"), path)
    else:
        import torch
        import torchvision
        if not hasattr(torchvision.models, name):
            raise ValueError(f"unknown model {name}")
        torch.manual_seed(0)
        net = getattr(torchvision.models, name)(weights=None).eval()
        torch.onnx.export(net, torch.randn(1, 3, 224, 224), path, opset_version=13,
                          input_names=["x"], output_names=["y"])
    return path


def bench_pair(args, libs):
    """Median latency (ms) of each library, interleaved repeats."""
    times = {lib: [] for lib in libs}
    for r in range(args.repeats):
        order = libs if r % 2 == 0 else list(reversed(libs))
        for lib in order:
            out = run([args.kiln_bench, lib, "--threads", str(args.threads),
                       "--iters", str(args.iters), "--warmup", "3"])
            times[lib].append(float(out.split("median=")[1].split()[0]))
    return {lib: statistics.median(t) for lib, t in times.items()}


def tune(args, model, db, search, trials, log):
    start = time.time()
    cmd = [args.kiln, "tune", model, "--db", db, "--cpu", "native", "--search", search,
           "--trials", str(trials), "--threads", str(args.threads)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    log.write(r.stderr)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return time.time() - start


def search_table(random_db, model_db, trials):
    """Per task: best of both searches and trials each needed to reach 5 % of it."""
    def curves(path, search):
        db = sqlite3.connect(path)
        tasks = {sig: (node, kind) for sig, node, kind in
                 db.execute("SELECT signature, node, kind FROM tasks")}
        out = {}
        for sig, trial, ns in db.execute(
                "SELECT signature, trial, time_ns FROM records WHERE search = ? AND "
                "status = 'ok' ORDER BY signature, trial", (search,)):
            out.setdefault(sig, []).append((trial, ns))
        return tasks, out
    tasks, rnd = curves(random_db, "random")
    _, mdl = curves(model_db, "model")
    rows = []
    for sig in sorted(set(rnd) & set(mdl), key=lambda s: tasks[s][0]):
        if tasks[sig][1] not in ("conv", "contraction"):
            continue
        best = min(ns for _, ns in rnd[sig] + mdl[sig])

        def reach(curve):
            for trial, ns in curve:
                if ns <= 1.05 * best:
                    return trial + 1
            return None
        rows.append((tasks[sig][0], tasks[sig][1], best / 1e6,
                     min(ns for _, ns in rnd[sig]) / 1e6, reach(rnd[sig]),
                     min(ns for _, ns in mdl[sig]) / 1e6, reach(mdl[sig])))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(REPO, "build", "bin", "kiln"))
    ap.add_argument("--kiln-bench", default=os.path.join(REPO, "build", "bin", "kiln_bench"))
    ap.add_argument("--models", default="cls,det,encoder,conv,resnet18")
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--search-model", default="resnet50")
    ap.add_argument("--search-trials", type=int, default=48)
    ap.add_argument("--work-dir")
    ap.add_argument("--out")
    args = ap.parse_args()
    work = args.work_dir or tempfile.mkdtemp(prefix="kiln-tune-bench-")
    os.makedirs(work, exist_ok=True)
    log = open(os.path.join(work, "tune.log"), "a")
    lines = ["| model | tasks | tune time | default ms | tuned ms | tuned / default |",
             "|---|---|---|---|---|---|"]
    db = os.path.join(work, "models.sqlite")
    for name in [m for m in args.models.split(",") if m]:
        model = prepare(name, work)
        seconds = tune(args, model, db, "model", args.trials, log)
        default_so = os.path.join(work, name + "_default.so")
        tuned_so = os.path.join(work, name + "_tuned.so")
        run([args.kiln, "compile", model, "-o", default_so, "--cpu", "native"])
        out = subprocess.run([args.kiln, "compile", model, "-o", tuned_so, "--cpu", "native",
                              "--tuning-db", db, "-v"], capture_output=True, text=True)
        applied = next((l.split("kiln: ")[1].split(" tuned")[0] for l in
                        out.stderr.splitlines() if "tuned schedules" in l), "?")
        t = bench_pair(args, [default_so, tuned_so])
        tasks = sqlite3.connect(db).execute(
            "SELECT count(*) FROM tasks WHERE model = ?", (os.path.basename(model),)).fetchone()[0]
        row = (f"| {name} | {tasks} ({applied} tuned) | {seconds / 60:.1f} min | "
               f"{t[default_so]:.3f} | {t[tuned_so]:.3f} | {t[tuned_so] / t[default_so]:.2f}x |")
        print(row, flush=True)
        lines.append(row)
    search_lines = []
    if args.search_model:
        model = prepare(args.search_model, work)
        random_db = os.path.join(work, "search_random.sqlite")
        model_db = os.path.join(work, "search_model.sqlite")
        for path in (random_db, model_db):
            if os.path.exists(path):
                os.remove(path)
        tune(args, model, random_db, "random", args.search_trials, log)
        tune(args, model, model_db, "model", args.search_trials, log)
        rows = search_table(random_db, model_db, args.search_trials)
        search_lines = ["| node | kind | best ms | random best | random trials to 5 % | "
                        "model best | model trials to 5 % |", "|---|---|---|---|---|---|---|"]
        for node, kind, best, rb, rt, mb, mt in rows:
            search_lines.append(f"| {node} | {kind} | {best:.3f} | {rb:.3f} | {rt or '-'} | "
                                f"{mb:.3f} | {mt or '-'} |")
        cap = args.search_trials + 1
        rsum = sum(r[4] or cap for r in rows)
        msum = sum(r[6] or cap for r in rows)
        rgot = sum(1 for r in rows if r[4])
        mgot = sum(1 for r in rows if r[6])
        search_lines.append(
            f"| all {len(rows)} | | | | {rgot} reached, {rsum} trials | | "
            f"{mgot} reached, {msum} trials |")
        print("\n".join(search_lines), flush=True)
    cmd = "/usr/bin/python3 bench/tune_bench.py " + " ".join(sys.argv[1:])
    text = ["Produced by", "", "```", cmd, "```", "",
            f"on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.threads} thread(s), "
            f"--trials {args.trials}, medians of {args.repeats} interleaved repeats of "
            f"{args.iters} iterations.", "", "Tuned against default:", ""] + lines
    if search_lines:
        text += ["", f"Search comparison on {args.search_model} ({args.search_trials} trials "
                 "each, from empty databases; a task that never got within 5 % counts "
                 f"{args.search_trials + 1}):", ""] + search_lines
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(text) + "\n")
    print(f"work dir: {work}")


if __name__ == "__main__":
    main()
