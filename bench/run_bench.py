#!/usr/bin/python3
"""kiln against ONNX Runtime, OpenBLAS and the machine's FMA peak, side by side.

    /usr/bin/python3 bench/run_bench.py [--threads 1,2] [--iters N] [--warmup N]
        [--repeats R] [--models cls,det,encoder,conv] [--sizes 256,512,1024,2048]
        [--out docs/PERFORMANCE.md] [--work-dir DIR] [--build-kiln]

What it measures, all in one run and interleaved (every repeat runs each
kiln job next to its peer, alternating which goes first, so that load from
other processes falls on both):
  (a) models: kiln (compiled once from a static-shape copy, timed through
      kiln_bench and kiln_rt) against ONNX Runtime (ort_run.js --bench, CPU
      provider, graph optimisations 'all', intraOpNumThreads = the same N) on
      the same input shapes; ratio = kiln latency / ORT latency.
  (b) sgemm N x N: kiln's MatMul model against OpenBLAS cblas_sgemm
      (bench/sgemm_openblas.c), once with the core type the environment selects
      (OPENBLAS_CORETYPE, if set) and once with OpenBLAS's own CPU detection,
      and against the measured peak FMA rate (bench/peak_fma.c) per thread
      count: GFLOP/s and % of peak.
  (c) the compile time of each model (wall and CPU), the PP-OCRv4 detector
      being the one worth watching.
Every figure is the median over `repeats` runs of each run's median over
`iters` timed iterations (warm-up excluded). Peaks are the best over repeats.

It builds what it needs beside the results (kiln_bench, peak_fma,
sgemm_openblas) with $CC (default cc); --build-kiln also runs
`ninja -C build kiln kiln_rt` first. A model that fails to compile or run is
reported as failed; the rest of the run goes on. A compile gets
--compile-timeout seconds and --compile-mem-gb of address space, so a runaway
compile fails alone instead of exhausting the machine.

With --out the results go to a Markdown file (machine, command, tables, a
reading generated from the numbers); text between the lines
`<!-- notes:begin -->` and `<!-- notes:end -->` of an existing file is kept.
"""

import argparse
import json
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, os.path.join(REPO_ROOT, "test", "e2e", "real_models"))
import run_real_models as real_models  # noqa: E402

MODEL_FILES = {name: (filename, make) for name, filename, make in real_models.MODELS}
MODEL_TITLES = {
    "cls": "PP-OCR mobile v2.0 cls (1x3x48x192)",
    "det": "PP-OCRv4 det (1x3x320x320)",
    "encoder": "encoder (int64 ids 2x32)",
    "conv": "3 x Conv3x3+Relu, 64ch 56x56",
}
NOTES_BEGIN, NOTES_END = "<!-- notes:begin -->", "<!-- notes:end -->"
DEFAULT_NOTES = """\
- The machine is small and shared: other processes (compiles, tests) may run during a
  measurement. Each kiln figure is measured next to its peer in the same repeat, so load
  shifts both; ratios are more trustworthy than absolute times. At 2 threads on 2 cores
  any other process steals a core from both sides, so 2-thread figures are the noisiest.
- OpenBLAS is Debian's DYNAMIC_ARCH build. `OPENBLAS_CORETYPE` in the environment forces
  its kernel choice; the sgemm table shows it both as the environment selects and with its
  own CPU detection, and compares kiln with the faster of the two.
- ONNX Runtime is onnxruntime-node (CPU provider, its own MLAS kernels), timed inside
  Node around `session.run`; kiln is timed in C around `kiln_run`. Both exclude
  session/model creation and warm-up runs. ORT's intra-op threads spin between runs.
- The encoder's int64 inputs are filled by kiln_bench with its own pattern, while ORT gets
  token ids in range; a Gather's cost does not depend on which ids it reads.
- The FMA peak is measured, not computed from a data sheet: independent FMA chains in
  registers on every thread, in 1 ms rounds started together; the peak is the 90th
  percentile of the round rates (rounds that lost their core to another process are slow
  and fall below it), the best over the repeats. Clock boost makes it vary a little."""


# ---------------------------------------------------------------------------
# processes

def run(argv, timeout=None, env=None, mem_gb=None, cwd=None):
    """Runs argv; returns (returncode, stdout, stderr, wall_s, cpu_s)."""
    def limit():
        if mem_gb:
            lim = int(mem_gb * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                           preexec_fn=limit if mem_gb else None, cwd=cwd)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = f"timed out after {timeout} s"
    except OSError as e:
        rc, out, err = "error", "", str(e)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rc, out, err, wall, cpu


def first_error(rc, out, err):
    if rc == "timeout":
        return err
    if isinstance(rc, int) and rc < 0:
        return f"killed by signal {-rc}"
    for line in (err + "\n" + out).splitlines():
        if line.strip():
            return line.strip()[:160]
    return f"exit status {rc}"


def capture(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


# ---------------------------------------------------------------------------
# building

def build_helpers(args, bindir):
    """Builds kiln_bench, peak_fma, core_latency and sgemm_openblas; returns
    {name: path or None} and {name: why not}."""
    cc = os.environ.get("CC", "cc")
    rt_inc = os.path.join(REPO_ROOT, "runtime", "include")
    rt_lib = os.path.dirname(args.kiln_rt)
    recipes = {
        "kiln_bench": [os.path.join(BENCH_DIR, "kiln_bench.c"), f"-I{rt_inc}", f"-L{rt_lib}",
                       "-lkiln_rt", f"-Wl,-rpath,{rt_lib}"],
        "peak_fma": [os.path.join(BENCH_DIR, "peak_fma.c"), "-pthread"],
        "core_latency": [os.path.join(BENCH_DIR, "core_latency.c"), "-pthread"],
        "sgemm_openblas": [os.path.join(BENCH_DIR, "sgemm_openblas.c"), "-lopenblas"],
    }
    paths, why = {}, {}
    for name, srcs in recipes.items():
        prebuilt = os.path.join(REPO_ROOT, "build", "bin", name)
        if name == "kiln_bench" and os.access(prebuilt, os.X_OK):
            paths[name] = prebuilt
            continue
        exe = os.path.join(bindir, name)
        rc, out, err, _, _ = run([cc, "-O2", "-o", exe] + srcs, timeout=300)
        if rc == 0:
            paths[name] = exe
        else:
            paths[name] = None
            why[name] = first_error(rc, out, err)
            if name == "sgemm_openblas" and "cblas.h" in err:
                why[name] = "cblas.h not found (apt-get install -y libopenblas-dev)"
            print(f"warning: could not build {name}: {why[name]}", file=sys.stderr)
    return paths, why


# ---------------------------------------------------------------------------
# parsing tool output

def parse_kiln_bench(out):
    m = re.search(r"median=([\d.]+) ms", out)
    return float(m.group(1)) if m else None


def parse_ort(out):
    m = re.search(r"^median_ms ([\d.]+)", out, re.M)
    return float(m.group(1)) if m else None


def parse_openblas(out):
    m = re.search(r"core=(\S+) .*median=([\d.]+) ms", out)
    cfg = re.search(r"^config (.*)$", out, re.M)
    return (float(m.group(2)), m.group(1), cfg.group(1) if cfg else "") if m else None


def parse_peak(out):
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"isa=(\S+) threads=\d+ gflops=([\d.]+)", out)}


# ---------------------------------------------------------------------------
# jobs

class Series:
    """The repeat medians of one measured thing, or why it failed."""

    def __init__(self):
        self.values, self.error = [], None

    def add(self, value, error=None):
        if value is None:
            self.error = self.error or error or "no timing in output"
        else:
            self.values.append(value)

    @property
    def median(self):
        return statistics.median(self.values) if self.values else None

    def spread(self):
        if len(self.values) < 2:
            return None
        return (max(self.values) - min(self.values)) / statistics.median(self.values)


def iters_for(series, args, fallback_ms):
    """Timed iterations for the next run: --iters, fewer if each takes long."""
    ms = series.median or fallback_ms
    if not ms:
        return args.iters
    return max(args.min_iters, min(args.iters, int(args.run_seconds * 1e3 / ms)))


def core_round_trip_ns(tools):
    """The round trip of a cache line between CPUs 0 and 1 (bench/core_latency.c),
    or None: how far apart the host placed the two cores a 2-thread run uses."""
    exe = tools.get("core_latency")
    if not exe:
        return None
    rc, out, _, _, _ = run([exe, "0", "1", "--rounds", "100000"], timeout=60)
    m = re.search(r"round_trip_ns=([0-9.]+)", out or "")
    return float(m.group(1)) if rc == 0 and m else None


def machine_info():
    lscpu = capture(["lscpu"])
    field = {}
    for line in lscpu.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            field[k.strip()] = v.strip()
    flags = field.get("Flags", "").split()
    wanted = re.compile(r"^(sse4_2|avx|avx2|fma|f16c|avx512.*|avx_vnni|amx.*|sha_ni)$")
    cores = int(field.get("Core(s) per socket", "0") or 0) * int(field.get("Socket(s)", "1") or 1)
    return {
        "model": field.get("Model name", platform.processor() or "unknown"),
        "vendor": field.get("Vendor ID", ""),
        "family": field.get("CPU family", ""),
        "cpus": field.get("CPU(s)", ""),
        "cores": cores,
        "threads_per_core": field.get("Thread(s) per core", ""),
        "isa": [f for f in flags if wanted.match(f)],
        "hypervisor": "hypervisor" in flags,
        "mem_gb": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30),
        "kernel": platform.release(),
    }


def versions(args):
    v = {}
    head = capture(["git", "-C", REPO_ROOT, "rev-parse", "--short", "HEAD"]).strip()
    dirty = capture(["git", "-C", REPO_ROOT, "status", "--porcelain", "--untracked-files=no"])
    v["kiln"] = head + (" + uncommitted changes" if dirty.strip() else "")
    ort_pkg = None
    for d in [args.ort_dir, os.environ.get("KILN_ORT_DIR"), os.path.join(REPO_ROOT, "build", "ort")]:
        if not d:
            continue
        for p in [os.path.join(d, "node_modules", "onnxruntime-node", "package.json"),
                  os.path.join(d, "package.json")]:
            if os.path.isfile(p):
                with open(p) as f:
                    pkg = json.load(f)
                if pkg.get("name") == "onnxruntime-node":
                    ort_pkg = pkg.get("version")
                    break
        if ort_pkg:
            break
    v["ort"] = f"onnxruntime-node {ort_pkg}" if ort_pkg else "not found"
    v["node"] = capture(["node", "--version"]).strip()
    v["cc"] = capture([os.environ.get("CC", "cc"), "--version"]).splitlines()[:1]
    v["cc"] = v["cc"][0] if v["cc"] else ""
    return v


def prepare_models(args, work, models):
    """Writes static-shape copies and input .npy files; returns {name: info}."""
    out = {}
    for name in models:
        d = os.path.join(work, "models", name)
        os.makedirs(d, exist_ok=True)
        info = {"dir": d, "inputs": [], "error": None}
        if name == "conv":
            rc, o, e, _, _ = run([sys.executable, os.path.join(BENCH_DIR, "make_models.py"), d,
                                  "--size", "16"], timeout=300)
            info["onnx"] = os.path.join(d, "conv3x3_64.onnx")
            if rc != 0 or not os.path.isfile(info["onnx"]):
                info["error"] = f"make_models.py failed: {first_error(rc, o, e)}"
            else:
                x = np.random.default_rng(real_models.SEED).random((1, 64, 56, 56),
                                                                   dtype=np.float32)
                p = os.path.join(d, "input_0.npy")
                np.save(p, x)
                info["inputs"] = [p]
        else:
            filename, make = MODEL_FILES[name]
            src = os.path.join(args.models_dir, filename)
            if not os.path.isfile(src):
                info["error"] = f"missing {src} (test/e2e/models/fetch_models.sh)"
            else:
                arrays = make(np.random.default_rng(real_models.SEED))
                info["onnx"] = os.path.join(d, "static.onnx")
                real_models.with_static_inputs(src, arrays, info["onnx"])
                for k, a in enumerate(arrays):
                    p = os.path.join(d, f"input_{k}.npy")
                    np.save(p, a)
                    info["inputs"].append(p)
        out[name] = info
    return out


def add_model_tool_args(ap, compile_mem_gb=12.0):
    """The options of the model benchmarks that time kiln libraries against ONNX
    Runtime (torchvision_bench.py, quantized_bench.py): tools, timeouts, limits."""
    ap.add_argument("--kiln", default=os.path.join(REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--kiln-rt", default=os.path.join(REPO_ROOT, "build", "lib",
                                                      "libkiln_rt.so"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--compile-timeout", type=int, default=900)
    ap.add_argument("--compile-mem-gb", type=float, default=compile_mem_gb)
    ap.add_argument("--run-timeout", type=int, default=600)


def compile_model(args, onnx_path, so_path, extra=()):
    """Returns (ok, message, wall_s, cpu_s); `extra`: more `kiln compile` flags."""
    # ONNX Runtime picks its kernels for this machine at run time; kiln's
    # counterpart is --cpu native (the default is the portable x86-64-v3).
    rc, out, err, wall, cpu = run([args.kiln, "compile", onnx_path, "-o", so_path,
                                   "--cpu", "native", *extra],
                                  timeout=args.compile_timeout, mem_gb=args.compile_mem_gb)
    if rc == 0 and os.path.isfile(so_path):
        return True, "", wall, cpu
    msg = first_error(rc, out, err)
    if isinstance(rc, int) and rc == -9:
        msg = "killed (out of memory?)"
    elif "bad_alloc" in (err or "") or "out of memory" in (err or "").lower():
        msg = f"out of memory (limit {args.compile_mem_gb:g} GB)"
    return False, msg, wall, cpu


def kiln_job(tools, so, threads, iters, args, flops=None):
    argv = [tools["kiln_bench"], so, "--threads", str(threads), "--iters", str(iters),
            "--warmup", str(args.warmup)]
    if flops:
        argv += ["--flops", str(flops)]
    rc, out, err, _, _ = run(argv, timeout=args.run_timeout)
    return (parse_kiln_bench(out), None) if rc == 0 else (None, first_error(rc, out, err))


def ort_job(onnx_path, inputs, threads, iters, args):
    argv = ["node", os.path.join(REPO_ROOT, "test", "e2e", "tools", "ort_run.js"), onnx_path,
            "--threads", str(threads), "--bench", str(iters), "--warmup", str(args.warmup),
            "--opt-level", "all"]
    if args.ort_dir:
        argv += ["--ort-dir", args.ort_dir]
    for p in inputs:
        argv += ["--input", p]
    rc, out, err, _, _ = run(argv, timeout=args.run_timeout)
    return (parse_ort(out), None) if rc == 0 else (None, first_error(rc, out, err))


def openblas_env(threads, coretype):
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    env.pop("OPENBLAS_CORETYPE", None)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    return env


def openblas_job(tools, n, threads, iters, args, coretype):
    argv = [tools["sgemm_openblas"], str(n), "--threads", str(threads), "--iters", str(iters),
            "--warmup", str(args.warmup)]
    rc, out, err, _, _ = run(argv, timeout=args.run_timeout, env=openblas_env(threads, coretype))
    if rc != 0:
        return None, first_error(rc, out, err), None, None
    parsed = parse_openblas(out)
    if not parsed:
        return None, "no timing in output", None, None
    return parsed[0], None, parsed[1], parsed[2]


# ---------------------------------------------------------------------------
# formatting

def fmt_ms(v):
    if v is None:
        return "—"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def fmt(v, digits=2):
    return "—" if v is None else f"{v:.{digits}f}"


def cell(series, f=fmt_ms):
    if series.median is not None:
        return f(series.median)
    return f"failed: {series.error}" if series.error else "—"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def geomean(xs):
    xs = [x for x in xs if x]
    return float(np.exp(np.mean(np.log(xs)))) if xs else None


# ---------------------------------------------------------------------------
# main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    ap.add_argument("--iters", type=int, default=20, help="timed iterations per run (at most)")
    ap.add_argument("--min-iters", type=int, default=5,
                    help="timed iterations per run (at least)")
    ap.add_argument("--run-seconds", type=float, default=2.0,
                    help="a run takes fewer than --iters iterations beyond this many seconds")
    ap.add_argument("--warmup", type=int, default=3, help="untimed iterations per run")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved runs of each job")
    ap.add_argument("--models", default="cls,det,encoder,conv",
                    help="comma list of: " + ",".join(list(MODEL_FILES) + ["conv"]) +
                    " (empty: none)")
    ap.add_argument("--sizes", default="256,512,1024,2048",
                    help="sgemm sizes N (empty: none)")
    ap.add_argument("--out", default=None, help="write a Markdown report here")
    ap.add_argument("--work-dir", default=None, help="keep models, binaries and raw results")
    ap.add_argument("--kiln", default=os.path.join(REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--kiln-rt", default=os.path.join(REPO_ROOT, "build", "lib", "libkiln_rt.so"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--models-dir",
                    default=os.path.join(REPO_ROOT, "test", "e2e", "models", "cache"))
    ap.add_argument("--build-kiln", action="store_true",
                    help="run `ninja -C build kiln kiln_rt` first")
    ap.add_argument("--compile-timeout", type=int, default=600, help="seconds per compile")
    ap.add_argument("--compile-mem-gb", type=float, default=8.0,
                    help="address-space limit of a compile")
    ap.add_argument("--run-timeout", type=int, default=600, help="seconds per timed run")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    for m in models:
        if m not in MODEL_FILES and m != "conv":
            ap.error(f"unknown model {m}")
    command = "/usr/bin/python3 bench/run_bench.py " + shlex.join(sys.argv[1:])
    started = time.strftime("%Y-%m-%d %H:%M %Z")
    load_before = os.getloadavg()

    if args.build_kiln:
        rc, out, err, _, _ = run(["ninja", "-C", os.path.join(REPO_ROOT, "build"), "kiln",
                                  "kiln_rt"], timeout=3600)
        if rc != 0:
            print(f"warning: building kiln failed ({first_error(rc, out, err)}); "
                  "using the binaries there are", file=sys.stderr)
    for path in (args.kiln, args.kiln_rt):
        if not os.path.isfile(path):
            sys.exit(f"run_bench.py: {path} is missing; build kiln first (setup.sh)")

    work = args.work_dir or tempfile.mkdtemp(prefix="kiln-bench-")
    os.makedirs(os.path.join(work, "bin"), exist_ok=True)
    tools, tool_errors = build_helpers(args, os.path.join(work, "bin"))
    if not tools.get("kiln_bench"):
        sys.exit(f"run_bench.py: cannot build kiln_bench: {tool_errors.get('kiln_bench')}")
    info = machine_info()
    vers = versions(args)
    env_coretype = os.environ.get("OPENBLAS_CORETYPE") or None

    # -- compile everything once ------------------------------------------------
    prepared = prepare_models(args, work, models)
    compiled = {}
    for name in models:
        p = prepared[name]
        so = os.path.join(p["dir"], f"{name}.so")
        if p["error"]:
            compiled[name] = {"ok": False, "msg": p["error"], "wall": None, "cpu": None}
        else:
            print(f"compiling {name} ...", flush=True)
            ok, msg, wall, cpu = compile_model(args, p["onnx"], so)
            compiled[name] = {"ok": ok, "msg": msg, "wall": wall, "cpu": cpu, "so": so}
            print(f"  {'ok' if ok else 'FAILED: ' + msg} ({wall:.1f} s wall, {cpu:.1f} s cpu)",
                  flush=True)
    mm = {}
    for n in sizes:
        d = os.path.join(work, "matmul", str(n))
        so = os.path.join(d, f"matmul{n}.so")
        rc, o, e, _, _ = run([sys.executable, os.path.join(BENCH_DIR, "make_models.py"), d,
                              "--size", str(n)], timeout=300)
        if rc != 0:
            mm[n] = {"ok": False, "msg": f"make_models.py: {first_error(rc, o, e)}"}
            continue
        print(f"compiling matmul {n} ...", flush=True)
        ok, msg, wall, cpu = compile_model(args, os.path.join(d, f"matmul{n}.onnx"), so)
        mm[n] = {"ok": ok, "msg": msg, "wall": wall, "cpu": cpu, "so": so}
        if not ok:
            print(f"  FAILED: {msg}", flush=True)

    # -- the interleaved runs ------------------------------------------------------
    S = {}

    def series(*key):
        return S.setdefault(key, Series())

    blas_cores = {}
    blas_config = ""
    blas_variants = [("env", env_coretype), ("auto", None)] if env_coretype else [("auto", None)]
    peak = {}
    for rep in range(args.repeats):
        print(f"repeat {rep + 1}/{args.repeats}", flush=True)
        flip = rep % 2 == 1
        for t in threads:
            if tools.get("peak_fma"):
                rc, out, err, _, _ = run([tools["peak_fma"], "--threads", str(t), "--ms", "300"],
                                         timeout=300)
                for isa, g in parse_peak(out).items():
                    peak[(isa, t)] = max(peak.get((isa, t), 0.0), g)
        for name in models:
            c = compiled[name]
            for t in threads:
                ks, os_ = series("kiln", name, t), series("ort", name, t)
                jobs = []
                if c["ok"]:
                    jobs.append(("kiln", lambda t=t, ks=ks, c=c: ks.add(*kiln_job(
                        tools, c["so"], t, iters_for(ks, args, None), args))))
                else:
                    ks.error = f"compile failed: {c['msg']}"
                jobs.append(("ort", lambda t=t, os_=os_, name=name: os_.add(*ort_job(
                    prepared[name].get("onnx"), prepared[name]["inputs"], t,
                    iters_for(os_, args, None), args)) if not prepared[name]["error"]
                    else os_.add(None, prepared[name]["error"])))
                for _, job in (reversed(jobs) if flip else jobs):
                    job()
                print(f"  {name:8s} t={t}: kiln {fmt_ms(ks.values[-1] if ks.values else None)} ms"
                      f"  ort {fmt_ms(os_.values[-1] if os_.values else None)} ms", flush=True)
        for n in sizes:
            flops = 2.0 * n ** 3
            for t in threads:
                ks = series("kiln", "mm", n, t)
                guess = None
                if (("avx512", t) in peak):
                    guess = flops / (peak[("avx512", t)] * 0.5e9) * 1e3
                jobs = []
                if mm[n]["ok"]:
                    jobs.append(lambda t=t, ks=ks, guess=guess: ks.add(*kiln_job(
                        tools, mm[n]["so"], t, iters_for(ks, args, guess), args, flops)))
                else:
                    ks.error = f"compile failed: {mm[n]['msg']}"
                for variant, core in blas_variants:
                    bs = series("blas", variant, n, t)
                    if not tools.get("sgemm_openblas"):
                        bs.error = tool_errors.get("sgemm_openblas")
                        continue

                    def blas(t=t, bs=bs, variant=variant, core=core, guess=guess):
                        nonlocal blas_config
                        v, e, corename, cfg = openblas_job(
                            tools, n, t, iters_for(bs, args, guess), args, core)
                        bs.add(v, e)
                        if corename:
                            blas_cores[variant] = corename
                            blas_config = cfg or blas_config
                    jobs.append(blas)
                for job in (reversed(jobs) if flip else jobs):
                    job()
                line = f"  sgemm {n:5d} t={t}: kiln {fmt_ms(ks.values[-1] if ks.values else None)}"
                for variant, _ in blas_variants:
                    bs = series("blas", variant, n, t)
                    line += (f"  openblas[{blas_cores.get(variant, variant)}] "
                             f"{fmt_ms(bs.values[-1] if bs.values else None)}")
                print(line + " ms", flush=True)
    load_after = os.getloadavg()

    # -- tables ---------------------------------------------------------------------
    model_rows, model_ratios = [], []
    for name in models:
        for t in threads:
            k, o = S[("kiln", name, t)], S[("ort", name, t)]
            ratio = k.median / o.median if k.median and o.median else None
            if ratio:
                model_ratios.append((name, t, ratio))
            model_rows.append([MODEL_TITLES.get(name, name), t, cell(k), cell(o),
                               fmt(ratio), spread_cell(k, o)])
    model_table = table(["model", "threads", "kiln ms", "ORT ms", "kiln / ORT",
                         "spread kiln / ORT"], model_rows)

    def peak_of(t):
        return peak.get(("avx512", t)) or peak.get(("avx2", t))

    blas_label = {v: f"OpenBLAS {blas_cores.get(v, '?')}" + (" (env)" if v == "env" else
                                                           " (auto)")
                  for v, _ in blas_variants}
    gemm_rows, gemm_ratios, kiln_pct = [], [], []
    for n in sizes:
        flops = 2.0 * n ** 3
        for t in threads:
            k = S[("kiln", "mm", n, t)]
            blas = {v: S[("blas", v, n, t)] for v, _ in blas_variants}
            gf = {key: (flops / s.median * 1e-6 if s.median else None)
                  for key, s in [("kiln", k)] + list(blas.items())}
            pk = peak_of(t)
            best_v = max((v for v in blas if gf[v]), key=lambda v: gf[v], default=None)
            ratio = k.median / blas[best_v].median if k.median and best_v else None
            if ratio:
                gemm_ratios.append((n, t, ratio))
            if gf["kiln"] and pk:
                kiln_pct.append((n, t, 100 * gf["kiln"] / pk))
            row = [n, t, cell(k), fmt(gf["kiln"], 1) if gf["kiln"] else cell(k)]
            for v, _ in blas_variants:
                row.append(fmt(gf[v], 1) if gf[v] else cell(blas[v]))
            row += [fmt(pk, 1), fmt(100 * gf["kiln"] / pk, 0) if gf["kiln"] and pk else "—",
                    fmt(100 * gf[best_v] / pk, 0) if best_v and pk else "—", fmt(ratio)]
            gemm_rows.append(row)
    gemm_table = table(["N", "threads", "kiln ms", "kiln GF/s"] +
                       [f"{blas_label[v]} GF/s" for v, _ in blas_variants] +
                       ["peak GF/s", "kiln % peak", "best BLAS % peak",
                        "kiln / best BLAS (time)"], gemm_rows)

    peak_rows = [[t, fmt(peak.get(("avx512", t)), 1), fmt(peak.get(("avx2", t)), 1)]
                 for t in threads]
    peak_table = table(["threads", "AVX-512 GF/s", "AVX2 GF/s"], peak_rows)

    compile_rows = []
    for name in models:
        c = compiled[name]
        compile_rows.append([MODEL_TITLES.get(name, name),
                             fmt(c["wall"], 1) if c["ok"] else f"failed: {c['msg']}",
                             fmt(c["cpu"], 1) if c["cpu"] is not None else "—"])
    for n in sizes:
        c = mm[n]
        if c.get("wall") is not None:
            compile_rows.append([f"MatMul {n}x{n}", fmt(c["wall"], 1) if c["ok"]
                                 else f"failed: {c['msg']}", fmt(c["cpu"], 1)])
    compile_table = table(["model", "compile wall s", "compile CPU s"], compile_rows)

    reading = summarize(model_ratios, gemm_ratios, kiln_pct, compiled, mm, peak, threads,
                        blas_cores, env_coretype)

    print()
    print("## Models: latency, kiln vs ONNX Runtime (ratio < 1: kiln faster)")
    print(model_table)
    print()
    print("## sgemm NxN: kiln MatMul vs OpenBLAS vs measured FMA peak")
    print(gemm_table)
    print()
    print("## Measured FMA peak")
    print(peak_table)
    print()
    print("## Compile time")
    print(compile_table)
    print()
    print(reading)

    raw = {"command": command, "started": started, "machine": info, "versions": vers,
           "openblas_coretype_env": env_coretype, "openblas_cores": blas_cores,
           "openblas_config": blas_config,
           "load_before": load_before, "load_after": load_after,
           "peak": {f"{isa}@{t}": v for (isa, t), v in peak.items()},
           "series": {"/".join(map(str, k)): {"values": s.values, "error": s.error}
                      for k, s in S.items()},
           "compile": {**{k: {kk: vv for kk, vv in v.items() if kk != "so"}
                          for k, v in compiled.items()},
                       **{f"matmul{n}": {kk: vv for kk, vv in v.items() if kk != "so"}
                          for n, v in mm.items()}}}
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(raw, f, indent=1)
    print(f"raw results: {os.path.join(work, 'results.json')}")

    if args.out:
        notes = DEFAULT_NOTES
        if os.path.isfile(args.out):
            with open(args.out) as f:
                old = f.read()
            m = re.search(re.escape(NOTES_BEGIN) + r"\n(.*?)\n" + re.escape(NOTES_END), old, re.S)
            if m:
                notes = m.group(1)
        doc = render(command, started, info, vers, env_coretype, blas_cores, blas_config,
                     load_before, load_after, args, model_table, gemm_table, peak_table,
                     compile_table, reading, notes)
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(doc)
        print(f"wrote {args.out}")
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def spread_cell(k, o):
    ks, os_ = k.spread(), o.spread()
    if ks is None and os_ is None:
        return "—"
    f = (lambda s: "—" if s is None else f"{100 * s:.0f}%")
    return f"{f(ks)} / {f(os_)}"


def summarize(model_ratios, gemm_ratios, kiln_pct, compiled, mm, peak, threads, blas_cores,
              env_coretype):
    """A reading of the numbers, generated so that it matches them."""
    out = ["Reading (generated from the numbers above):", ""]
    failed = [n for n, c in compiled.items() if not c["ok"]]
    failed += [f"matmul{n}" for n, c in mm.items() if not c["ok"]]
    if failed:
        out.append(f"- Failed to compile: {', '.join(failed)} (see the tables for the error).")
    for t in threads:
        rs = [r for _, tt, r in model_ratios if tt == t]
        if rs:
            g = geomean(rs)
            best = min((x for x in model_ratios if x[1] == t), key=lambda x: x[2])
            worst = max((x for x in model_ratios if x[1] == t), key=lambda x: x[2])
            out.append(f"- Models, {t} thread(s): kiln takes {g:.2f}x ORT's time "
                       f"(geometric mean over {len(rs)}); best {best[0]} {best[2]:.2f}x, "
                       f"worst {worst[0]} {worst[2]:.2f}x.")
    for t in threads:
        rs = [(n, r) for n, tt, r in gemm_ratios if tt == t]
        ps = [(n, p) for n, tt, p in kiln_pct if tt == t]
        if rs:
            g = geomean([r for _, r in rs])
            pct = ", ".join(f"N={n}: {p:.0f}%" for n, p in ps)
            out.append(f"- sgemm, {t} thread(s): kiln takes {g:.2f}x the faster OpenBLAS's "
                       f"time (geometric mean over sizes); kiln reaches {pct} of the "
                       f"measured peak.")
    for t in threads:
        a, b = peak.get(("avx512", t)), peak.get(("avx2", t))
        if a and b:
            out.append(f"- Measured peak, {t} thread(s): AVX-512 {a:.0f} GF/s, "
                       f"AVX2 {b:.0f} GF/s ({a / b:.1f}x).")
    if len(threads) > 1:
        for t in threads[1:]:
            a, b = peak.get(("avx512", threads[0])), peak.get(("avx512", t))
            if a and b:
                out.append(f"- The {t}-thread peak is {b / a:.2f}x the {threads[0]}-thread "
                           "peak (ideal: the thread ratio; less means the cores were "
                           "shared with other work during the run).")
    if env_coretype:
        out.append(f"- OPENBLAS_CORETYPE={env_coretype} is set in this environment; "
                   f"OpenBLAS's own detection picks {blas_cores.get('auto', '?')}.")
    return "\n".join(out)


def render(command, started, info, vers, env_coretype, blas_cores, blas_config, load_before,
           load_after, args, model_table, gemm_table, peak_table, compile_table, reading,
           notes):
    isa = " ".join(info["isa"]) or "none reported"
    lb = " ".join(f"{x:.2f}" for x in load_before)
    la = " ".join(f"{x:.2f}" for x in load_after)
    return f"""# kiln performance

Measured by `bench/run_bench.py`; rerun it to refresh this file. Performance is measured here,
never asserted in tests. Every ratio compares two programs measured side by side in the same
run, on the same thread count, interleaved so that load from other processes falls on both.
A ratio below 1 means kiln is faster.

## How this was produced

```
{command}
```

Run started {started}; load average before {lb}, after {la} (1/5/15 min).
Each figure is the median over {args.repeats} interleaved runs of each run's median over up to
{args.iters} timed iterations (at least {args.min_iters}, fewer than {args.iters} only when a
run would pass {args.run_seconds:g} s), after {args.warmup} warm-up iterations that are not
timed. The "spread" column is (max - min) / median of the repeat medians.

## Machine

| | |
|---|---|
| CPU | {info['model']} ({info['vendor']}, family {info['family']}) |
| cores | {info['cores']} cores, {info['threads_per_core']} thread(s) per core, {info['cpus']} logical CPUs{' (virtual machine)' if info['hypervisor'] else ''} |
| memory | {info['mem_gb']:.0f} GiB |
| ISA (lscpu flags) | {isa} |
| kernel | {info['kernel']} |
| kiln | {vers['kiln']} |
| ONNX Runtime | {vers['ort']} (Node {vers['node']}), CPU provider, graph optimisations all |
| OpenBLAS | {blas_config or 'not available'} |
| OPENBLAS_CORETYPE | {env_coretype or 'not set'} in the environment; auto-detected core: {blas_cores.get('auto', '?')} |
| C compiler (harness) | {vers['cc']} |

## (a) Models: latency, kiln vs ONNX Runtime

Static-shape copies of the models (as in test/e2e/real_models); kiln compiled once, timed
through kiln_rt by `kiln_bench`; ORT timed by `test/e2e/tools/ort_run.js --bench`.

{model_table}

## (b) sgemm N x N: kiln MatMul vs OpenBLAS vs the measured FMA peak

kiln: a one-node MatMul model (`bench/make_models.py`, weights constant); OpenBLAS:
`cblas_sgemm` row-major, no transposes (`bench/sgemm_openblas.c`). GF/s = 2N³ / median
time. "% peak" is against the measured AVX-512 FMA peak at the same thread count. The
ratio is time against the faster OpenBLAS configuration.

{gemm_table}

Measured FMA peak (`bench/peak_fma.c`, 90th percentile of 1 ms rounds, best over the repeats):

{peak_table}

## (c) Compile time

`kiln compile` of each benchmarked model, wall time and CPU time (user + system) of the
compiler process, on the shared machine.

{compile_table}

## Reading

{reading.split(chr(10), 2)[2] if reading.count(chr(10)) >= 2 else reading}

Notes on method:

{NOTES_BEGIN}
{notes}
{NOTES_END}
"""


if __name__ == "__main__":
    sys.exit(main())
