"""Helpers shared by the end-to-end test scripts: tensor files, comparisons, subprocesses.

Import it from a script in test/e2e/<dir>/ with
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
Needs numpy; onnx only for .pb tensors.
"""

import os
import re
import shutil
import subprocess

import numpy as np

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(TOOLS_DIR, "..", "..", ".."))
ORT_RUN_JS = os.path.join(TOOLS_DIR, "ort_run.js")


# --- tensor files ----------------------------------------------------------------------


def load_tensor(path):
    """Reads a .npy file or an ONNX TensorProto .pb file into a numpy array."""
    if path.endswith(".npy"):
        return np.load(path, allow_pickle=False)
    from onnx import TensorProto, numpy_helper
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def save_tensor(path, array, name=""):
    """Writes a numpy array as .npy, or as an ONNX TensorProto when path ends in .pb."""
    if path.endswith(".npy"):
        np.save(path, array, allow_pickle=False)
        return
    from onnx import numpy_helper
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(array), name).SerializeToString())


def numbered_files(directory, prefix):
    """prefix_0.pb, prefix_1.pb, ..., prefix_10.pb in numeric order."""
    pat = re.compile(re.escape(prefix) + r"_(\d+)\.pb$")
    found = []
    for name in os.listdir(directory):
        m = pat.match(name)
        if m:
            found.append((int(m.group(1)), os.path.join(directory, name)))
    return [p for _, p in sorted(found)]


# --- comparisons -----------------------------------------------------------------------


def _is_float(a):
    return np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating)


def compare_elementwise(actual, expected, rtol, atol):
    """ONNX-backend-style check: |a-b| <= atol + rtol*|b| elementwise, NaN must match NaN,
    infinities must match exactly; integers, bools and strings must be equal.
    Returns None when they match, else a one-line reason."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if actual.size == 0:
        return None
    if not _is_float(expected):
        bad = actual != expected
        n = int(np.count_nonzero(bad))
        if n == 0:
            return None
        idx = np.unravel_index(int(np.argmax(bad)), bad.shape) if bad.ndim else ()
        return (f"{n}/{actual.size} elements differ; first at {list(idx)}: "
                f"{actual[idx]!r} != {expected[idx]!r}")
    a = actual.astype(np.float64)
    b = expected.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    inf_mismatch = (np.isinf(a) | np.isinf(b)) & ~(nan_a | nan_b) & (a != b)
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(finite, np.abs(a - b), 0.0)
    bad = (nan_a != nan_b) | inf_mismatch | (finite & (diff > atol + rtol * np.abs(b)))
    n = int(np.count_nonzero(bad))
    if n == 0:
        return None
    denom = np.where(finite, np.abs(b), 1.0)
    rel = np.where(finite & (denom > 0), diff / np.maximum(denom, 1e-300), 0.0)
    parts = [f"{n}/{a.size} elements differ", f"max abs err {diff.max():.3g}",
             f"max rel err {rel.max():.3g}"]
    if int(np.count_nonzero(nan_a != nan_b)):
        parts.append(f"{int(np.count_nonzero(nan_a != nan_b))} NaN mismatches")
    if int(np.count_nonzero(inf_mismatch)):
        parts.append(f"{int(np.count_nonzero(inf_mismatch))} Inf mismatches")
    return "; ".join(parts)


def relative_error(actual, expected):
    """Error normalised by the reference's magnitude:
        max_abs = max|a-b|,  max_rel = max|a-b| / max(max|ref|, tiny).
    Elementwise relative error is meaningless where the reference crosses zero, so the
    scale of the whole tensor is the denominator (this is what "matches within 1e-4
    max relative error" means for a network output). Non-finite values anywhere give
    an infinite error unless both sides agree exactly."""
    a = np.asarray(actual, dtype=np.float64)
    b = np.asarray(expected, dtype=np.float64)
    if a.size == 0:
        return 0.0, 0.0
    same_nonfinite = ~np.isfinite(b) & ((a == b) | (np.isnan(a) & np.isnan(b)))
    if np.any(~np.isfinite(a) & ~same_nonfinite) or np.any(~np.isfinite(b) & ~same_nonfinite):
        return float("inf"), float("inf")
    finite = np.isfinite(b)
    diff = np.abs(a - b)[finite]
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.abs(b[finite]).max()) if diff.size else 0.0
    return max_abs, max_abs / max(scale, np.finfo(np.float32).tiny)


# --- subprocesses ----------------------------------------------------------------------


class CommandResult:
    def __init__(self, returncode, stdout, stderr, timed_out=False):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out

    def first_error_line(self):
        """The first non-empty line of stderr (else stdout); what a failure report shows."""
        if self.timed_out:
            return "timed out"
        for text in (self.stderr, self.stdout):
            for line in text.splitlines():
                if line.strip():
                    return line.strip()[:300]
        return f"exit status {self.returncode}, no output"


def run_command(argv, timeout=None, cwd=None, env=None):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                           env=env, errors="replace")
        return CommandResult(p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return CommandResult(-1, out, err, timed_out=True)
    except OSError as e:
        return CommandResult(-1, "", f"cannot run {argv[0]}: {e}")


def ort_run(model, inputs, output_dir, ort_dir=None, threads=None, extra=(), timeout=600):
    """Runs ort_run.js; returns (CommandResult, [output .npy paths in graph output order])."""
    argv = ["node", ORT_RUN_JS, model]
    for p in inputs:
        argv += ["--input", p]
    argv += ["--output-dir", output_dir]
    if ort_dir:
        argv += ["--ort-dir", ort_dir]
    if threads:
        argv += ["--threads", str(threads)]
    argv += list(extra)
    r = run_command(argv, timeout=timeout)
    outputs = []
    if r.returncode == 0:
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) >= 6 and f[0] == "output":
                outputs.append(f[-1])
    return r, outputs


def cpu_flags():
    """The flags of /proc/cpuinfo (avx512_bf16, amx_int8, ...); empty where unreadable."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def finish(passed, failed, work_root, keep):
    """Prints `N passed, N failed`, removes `work_root` unless `keep` (then says where it
    is) and returns the exit status: 0 iff something passed and nothing failed."""
    print(f"{passed} passed, {failed} failed")
    if keep:
        print(f"work dir: {work_root}")
    else:
        shutil.rmtree(work_root, ignore_errors=True)
    return 1 if failed or not passed else 0


def supported_ops(kiln, timeout=60):
    """The op types `kiln ops` prints, one per line."""
    r = run_command([kiln, "ops"], timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"`{kiln} ops` failed: {r.first_error_line()}")
    return {line.strip() for line in r.stdout.splitlines() if line.strip()}
