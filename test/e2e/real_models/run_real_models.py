#!/usr/bin/python3
"""Compiles real models with kiln and checks their outputs against ONNX Runtime.

    /usr/bin/python3 test/e2e/real_models/run_real_models.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--models-dir test/e2e/models/cache]
        [--model NAME ...] [--tol 1e-4] [--dynamic] [--work-dir DIR] [--keep]
        [--target T] [--cpu CPU] [--features +f,-g] [--compile-args "--layout nhwc"]

Models (fetch_models.sh and export_encoder.py put them in --models-dir):
  cls      ch_ppocr_mobile_v2.0_cls_infer.onnx   input 1x3x48x192 float in [0,1)
  cls_b4   the same model                        input 4x3x48x192
  det_256x480 ch_PP-OCRv4_det_infer.onnx         input 1x3x256x480 text page
  rec_w160, rec_w320, rec_w640, rec_b2  ch_PP-OCRv4_rec_infer.onnx (input ?x3x48x?)
                                                 at 1x3x48x{160,320,640} and 2x3x48x320
  det      ch_PP-OCRv4_det_infer.onnx            input 1x3x320x320 synthetic text page,
                                                 mean/std normalised (see text_page_input)
  encoder  encoder.onnx                          input 2x32 int64 token ids in [0,vocab)
Inputs are random with a fixed seed. The reference is ONNX Runtime (ort_run.js, graph
optimisations disabled so it computes the graph as written). kiln compiles each model as
shipped: by default `--input-shape` gives its graph inputs the test's static shape (cls at
batch 1 and 4, det at 320x320 and 256x480, rec at widths 160, 320 and 640 and at batch 2,
from one file each); --dynamic leaves the
symbolic dims as they are and compiles each model file once: its cases (rec at three
widths and batch 2, det at two sizes, cls at batch 1 and 4) run the same library.

Metric per output: max_abs = max|kiln - ort|, max_rel = max_abs / max|ort| (error relative
to the output's scale; elementwise relative error is meaningless where the output crosses
zero). A model passes when every output has the same shape and dtype and max_rel <= --tol.
Prints one line per model and `N passed, N failed`; exits non-zero on any failure.
"""

import argparse
import os
import shlex
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 1234
COMPILED = {}  # compile arguments (without -o) -> library, reused with --dynamic
ENCODER_VOCAB = 1000


def image_input(shape):
    def make(rng):
        return [rng.random(shape, dtype=np.float32)]
    return make


def text_page_input(shape):
    """A light page with six lines of character-like glyphs (box outlines with a middle
    bar, 18 px high) plus noise, normalised the way PaddleOCR's detector expects
    (ImageNet mean/std). On uniform noise the detector's probability map stays below
    ~1e-4, where ORT's own Sigmoid has ~1e-7 absolute error, so the metric would
    measure the last activation's rounding; on this page about 12 % of the map is
    above 0.3 and the maximum is 1."""
    def make(rng):
        n, c, h, w = shape
        img = np.full(shape, 0.95, dtype=np.float32)
        glyph_h, stroke = 18, 2
        y = 30
        while y + glyph_h < h - 10:
            x = 40
            while x < w - 20:
                gw = int(rng.integers(8, 13))
                for ys, xs in ((slice(y, y + glyph_h), slice(x, x + stroke)),
                               (slice(y, y + glyph_h), slice(x + gw - stroke, x + gw)),
                               (slice(y, y + stroke), slice(x, x + gw)),
                               (slice(y + glyph_h // 2, y + glyph_h // 2 + stroke),
                                slice(x, x + gw))):
                    img[:, :, ys, xs] = 0.1
                x += gw + int(rng.integers(2, 5))
                if rng.random() < 0.15:
                    x += 10  # word gap
            y += 45
        img += 0.03 * rng.standard_normal(shape).astype(np.float32)
        mean = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(1, 3, 1, 1)
        std = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(1, 3, 1, 1)
        return [((img - mean) / std).astype(np.float32)]
    return make


def token_input(batch, seq, vocab):
    def make(rng):
        return [rng.integers(0, vocab, (batch, seq), dtype=np.int64)]
    return make


MODELS = [
    ("cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx", image_input((1, 3, 48, 192))),
    ("cls_b4", "ch_ppocr_mobile_v2.0_cls_infer.onnx", image_input((4, 3, 48, 192))),
    ("det", "ch_PP-OCRv4_det_infer.onnx", text_page_input((1, 3, 320, 320))),
    ("det_256x480", "ch_PP-OCRv4_det_infer.onnx", text_page_input((1, 3, 256, 480))),
    ("rec_w160", "ch_PP-OCRv4_rec_infer.onnx", image_input((1, 3, 48, 160))),
    ("rec_w320", "ch_PP-OCRv4_rec_infer.onnx", image_input((1, 3, 48, 320))),
    ("rec_w640", "ch_PP-OCRv4_rec_infer.onnx", image_input((1, 3, 48, 640))),
    ("rec_b2", "ch_PP-OCRv4_rec_infer.onnx", image_input((2, 3, 48, 320))),
    ("encoder", "encoder.onnx", token_input(2, 32, ENCODER_VOCAB)),
]


def with_static_inputs(model_path, arrays, out_path):
    """Writes a copy of the model whose (non-initializer) graph inputs have fixed dims
    (bench/ times ONNX Runtime on it, so that both sides see static shapes)."""
    import onnx
    m = onnx.load(model_path)
    inits = {t.name for t in m.graph.initializer}
    graph_inputs = [i for i in m.graph.input if i.name not in inits]
    for vi, a in zip(graph_inputs, arrays):
        dims = vi.type.tensor_type.shape.dim
        del dims[:]
        for d in a.shape:
            dims.add().dim_value = d
    onnx.save(m, out_path)


def input_shape_flags(model_path, arrays):
    """`--input-shape NAME=DxD...` for each (non-initializer) graph input: the model is
    compiled as shipped, its symbolic dims set by the flag."""
    import onnx
    m = onnx.load(model_path)
    inits = {t.name for t in m.graph.initializer}
    graph_inputs = [i for i in m.graph.input if i.name not in inits]
    flags = []
    for vi, a in zip(graph_inputs, arrays):
        flags += ["--input-shape", vi.name + "=" + "x".join(str(d) for d in a.shape)]
    return flags


def check_model(args, name, filename, make_inputs, work):
    """Returns (ok, message)."""
    model = os.path.join(args.models_dir, filename)
    if not os.path.isfile(model):
        return False, f"missing {model} (run test/e2e/models/fetch_models.sh / export_encoder.py)"
    rng = np.random.default_rng(SEED)
    arrays = make_inputs(rng)
    inputs = []
    for k, a in enumerate(arrays):
        p = os.path.join(work, f"input_{k}.npy")
        np.save(p, a)
        inputs.append(p)

    r, ref_paths = e2e.ort_run(model, inputs, os.path.join(work, "ort"), ort_dir=args.ort_dir,
                               extra=["--opt-level", "disabled"], timeout=args.timeout)
    if r.returncode != 0:
        return False, f"ONNX Runtime failed: {r.first_error_line()}"

    shape_flags = [] if args.dynamic else input_shape_flags(model, arrays)
    so = os.path.join(work, f"{name}.so")
    t0 = time.monotonic()
    target_flags = sum([[f"--{k}", getattr(args, k)] for k in ("target", "cpu", "features")
                        if getattr(args, k)], [])
    argv = ([args.kiln, "compile", model, "-o", so] + target_flags + shape_flags
            + shlex.split(args.compile_args))
    # With symbolic dims one library per model file serves every input shape.
    key = tuple(argv[:3] + argv[5:])
    if args.dynamic and key in COMPILED:
        so = COMPILED[key]
    else:
        r = e2e.run_command(argv, timeout=args.timeout)
        if r.returncode != 0:
            return False, f"kiln compile failed: {r.first_error_line()}"
        COMPILED[key] = so
    compile_s = time.monotonic() - t0

    outs = [os.path.join(work, f"kiln_output_{k}.npy") for k in range(len(ref_paths))]
    argv = [args.kiln, "run", so]
    for p in inputs:
        argv += ["--input", p]
    for p in outs:
        argv += ["--output", p]
    r = e2e.run_command(argv, timeout=args.timeout)
    if r.returncode != 0:
        return False, f"kiln run failed: {r.first_error_line()}"

    worst_abs, worst_rel, problems = 0.0, 0.0, []
    for k, (ref_path, out_path) in enumerate(zip(ref_paths, outs)):
        if not os.path.isfile(out_path):
            problems.append(f"output {k} not written")
            continue
        ref, got = np.load(ref_path), e2e.load_tensor(out_path)
        if got.shape != ref.shape or got.dtype != ref.dtype:
            problems.append(f"output {k}: {got.dtype}{list(got.shape)} != "
                            f"expected {ref.dtype}{list(ref.shape)}")
            continue
        max_abs, max_rel = e2e.relative_error(got, ref)
        worst_abs, worst_rel = max(worst_abs, max_abs), max(worst_rel, max_rel)
        if not max_rel <= args.tol:
            problems.append(f"output {k}: max rel err {max_rel:.3g} > {args.tol:g}")
    stats = f"max abs err {worst_abs:.3g}, max rel err {worst_rel:.3g}, compile {compile_s:.1f}s"
    if problems:
        return False, "; ".join(problems) + f" ({stats})"
    return True, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None,
                    help="onnxruntime-node install dir (default: ort_run.js's lookup)")
    ap.add_argument("--models-dir",
                    default=os.path.join(e2e.REPO_ROOT, "test", "e2e", "models", "cache"))
    ap.add_argument("--model", action="append", choices=[m[0] for m in MODELS],
                    help="run only these models (repeatable)")
    ap.add_argument("--tol", type=float, default=1e-4, help="max relative error allowed")
    ap.add_argument("--dynamic", action="store_true",
                    help="compile the original model with symbolic dims")
    ap.add_argument("--target", default=None, help="--target for kiln compile (this machine's "
                    "architecture; test/e2e/emulated/ runs others)")
    ap.add_argument("--cpu", default=None, help="--cpu for kiln compile")
    ap.add_argument("--features", default=None, help="--features for kiln compile")
    ap.add_argument("--compile-args", default="",
                    help="extra `kiln compile` arguments, e.g. \"--layout nhwc\"")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per command")
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--keep", action="store_true", help="keep the work dir")
    args = ap.parse_args()

    work_root = args.work_dir or tempfile.mkdtemp(prefix="kiln-real-models-")
    os.makedirs(work_root, exist_ok=True)
    passed = failed = 0
    for name, filename, make_inputs in MODELS:
        if args.model and name not in args.model:
            continue
        work = os.path.join(work_root, name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        ok, msg = check_model(args, name, filename, make_inputs, work)
        print(f"{'PASS' if ok else 'FAIL'} {name:8s} {msg}", flush=True)
        passed += ok
        failed += not ok
    if args.keep or args.work_dir:
        print(f"work dir: {work_root}")
    else:
        shutil.rmtree(work_root, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
