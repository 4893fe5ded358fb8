#!/usr/bin/python3
"""torch-exported recurrent models (and a TransformerEncoder, a Swin and a MaxViT) through kiln, checked against
ONNX Runtime and torch.

    /usr/bin/python3 test/e2e/generated/run_torch_recurrent_tests.py --kiln build/bin/kiln
        [--ort-dir build/ort] [--tol 1e-4] [--keep]

Each case is a torch.nn LSTM/GRU/RNN (seeded random weights) exported to ONNX at opset 14
as torch writes it (the ONNX recurrent op plus the Shape/Gather/Concat plumbing around
it). Every model is compiled once, as exported: those with a dynamic sequence length and
batch run at each tested shape from the same library (outputs whose dims torch's export
does not tie to the input's are sized at run time).
torch's own output must match ONNX Runtime's first (so the
export is right), then kiln's output is compared with ONNX Runtime's: max |kiln - ort|
over max |ort| per output, <= --tol.
Prints one line per case and input shape and `N passed, N failed`.
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import e2e_common as e2e  # noqa: E402

SEED = 2718

# name: (module kind, kwargs, run shapes, dynamic axes exported)
CASES = {
    "lstm_2layer_bidirectional_batch_first": (
        "LSTM", dict(input_size=10, hidden_size=16, num_layers=2, bidirectional=True,
                     batch_first=True), [(3, 7, 10), (1, 12, 10)], True),
    "gru_seq_first": ("GRU", dict(input_size=8, hidden_size=12), [(5, 2, 8), (9, 2, 8)], True),
    "rnn_relu_static": ("RNN", dict(input_size=6, hidden_size=9, nonlinearity="relu"),
                        [(4, 3, 6)], False),
    # An LSTM whose final state goes through an If on the sign of sum(x): the
    # branches read outer values (then: h * 2 + x's last step mean, else: h - 1).
    "lstm_then_if": ("LSTM+If", dict(input_size=5, hidden_size=7), [(3, 2, 5), (3, 2, 5)],
                     False),
    # Not recurrent, but exported the same way with a dynamic batch and sequence
    # length: attention reshapes its heads with extents computed at run time.
    "transformer_encoder_dynamic_seq": (
        "TransformerEncoder", dict(d_model=32, nhead=4, dim_feedforward=64, num_layers=2),
        [(1, 7, 32), (2, 13, 32)], True),
    # A small Swin Transformer (torchvision's, two stages): shifted windows
    # whose padding, window partitions and attention masks torch's export
    # computes from shapes (Shape, Mod, reversed Slice, Transpose, Where of
    # Equal, ScatterND), each block from the block before it. 60 / 4 = 15
    # patches: windows of 7 pad to 21, and to 14 after the merge.
    "swin_small_static": ("SwinTransformer", dict(patch_size=[4, 4], embed_dim=32,
                                                  depths=[2, 2], num_heads=[2, 4],
                                                  window_size=[7, 7], num_classes=10),
                          [(1, 3, 60, 60)], False),
    # A small MaxViT (torchvision's): window and grid attention written as
    # Einsums over [B, windows, heads, T, D]; at 32x32 the last stage is one
    # 4x4 window, so B and the window dim are 1 beside the convolutions.
    "maxvit_small_static": ("MaxVit", dict(input_size=(32, 32), stem_channels=16,
                                           partition_size=4, block_channels=[32, 64],
                                           block_layers=[1, 1], head_dim=16,
                                           stochastic_depth_prob=0.0, num_classes=10),
                            [(1, 3, 32, 32)], False),
}


def add_if(path, hidden):
    """Appends z = If(sum(x) > 0, h * 2 + mean(x[-1]), h - 1) to an exported LSTM model."""
    import onnx
    from onnx import TensorProto as T, helper, numpy_helper
    m = onnx.load(path)
    g = m.graph
    g.initializer.extend([numpy_helper.from_array(np.array(0, np.float32), "zero"),
                          numpy_helper.from_array(np.array(2, np.float32), "two"),
                          numpy_helper.from_array(np.array(1, np.float32), "one")])
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["h", "two"], ["h2"]),
         helper.make_node("ReduceMean", ["x"], ["xm"], keepdims=0),
         helper.make_node("Add", ["h2", "xm"], ["then_z"])],
        "then", [], [helper.make_tensor_value_info("then_z", T.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Sub", ["h", "one"], ["else_z"])],
                               "else", [], [helper.make_tensor_value_info("else_z", T.FLOAT,
                                                                          None)])
    g.node.extend([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                   helper.make_node("Greater", ["s", "zero"], ["positive"]),
                   helper.make_node("If", ["positive"], ["z"], then_branch=then_g,
                                    else_branch=else_g)])
    g.output.append(helper.make_tensor_value_info("z", T.FLOAT, [1, 2, hidden]))
    onnx.save(m, path)


def export(kind, kwargs, shape, dynamic, path):
    import torch
    torch.manual_seed(SEED)
    if kind == "TransformerEncoder":
        args = dict(kwargs)
        layers = args.pop("num_layers")
        module = torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(dropout=0.0, batch_first=True, **args), layers,
            enable_nested_tensor=False).eval()
        torch.onnx.export(module, (torch.randn(*shape),), path, input_names=["x"],
                          output_names=["y"], opset_version=14,
                          dynamic_axes={"x": {0: "batch", 1: "seq"}})
        return module
    if kind in ("SwinTransformer", "MaxVit"):
        import torchvision.models as tvm
        module = getattr(tvm, kind)(**kwargs).eval()
        # Not under no_grad: the export of attention differs there.
        torch.onnx.export(module, (torch.randn(*shape),), path, input_names=["x"],
                          output_names=["y"], opset_version=17)
        return module
    with_if = kind == "LSTM+If"
    kind = "LSTM" if with_if else kind
    module = getattr(torch.nn, kind)(**kwargs).eval()
    x = torch.randn(*shape)
    axes = None
    if dynamic:
        batch_first = kwargs.get("batch_first", False)
        axes = {"x": {0: "batch", 1: "seq"} if batch_first else {0: "seq", 1: "batch"}}
    torch.onnx.export(module, (x,), path, input_names=["x"], output_names=["y", "h"]
                      if kind != "LSTM" else ["y", "h", "c"], opset_version=14,
                      dynamic_axes=axes)
    if with_if:
        add_if(path, kwargs["hidden_size"])
    return module


def check_one_context(runtime, so, seen, tol):
    """Every shape, largest first, then back to the smallest and the largest,
    on one context: the arena a run's dims need (buffers sized by symbolic
    dims are planned in it) grows with them, and every run matches ORT."""
    order = sorted(range(len(seen)), key=lambda k: -seen[k][0].size)
    order += [order[-1], order[0]]
    worst = 0.0
    with runtime.load(so) as m:
        needs = [m.arena_bytes_for(x) for x, _ in seen]
        for k in order:
            x, ort = seen[k]
            outs = m.run(x)
            if m.context_arena_bytes < needs[k]:
                return False, (f"arena holds {m.context_arena_bytes} bytes, "
                               f"the run needs {needs[k]}")
            for got, want in zip(outs, ort):
                _, rel = e2e.relative_error(got, want)
                worst = max(worst, rel)
    sizes = sorted(zip((x.size for x, _ in seen), needs))
    if sizes[0][1] > sizes[-1][1]:
        return False, f"arena for the smallest input {sizes[0][1]} > largest {sizes[-1][1]}"
    msg = (f"arena {sizes[0][1]} .. {sizes[-1][1]} bytes, "
           f"max rel err {worst:.3g}")
    return worst <= tol, msg


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", default=os.path.join(e2e.REPO_ROOT, "build", "bin", "kiln"))
    ap.add_argument("--ort-dir", default=None)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--runtime-lib", default=None,
                    help="libkiln_rt.so: also run every shape on one context")
    args = ap.parse_args()
    runtime = None
    if args.runtime_lib:
        os.environ["KILN_RT_LIBRARY"] = os.path.abspath(args.runtime_lib)
        sys.path.insert(0, os.path.join(e2e.REPO_ROOT, "runtime", "python"))
        import kiln_rt as runtime  # noqa: E402
    try:
        import torch
    except ImportError:
        print("skipped: python3-torch is not installed")
        return 77

    work_root = tempfile.mkdtemp(prefix="kiln-torch-rnn-")
    passed = failed = 0
    for name, (kind, kwargs, shapes, dynamic) in CASES.items():
        work = os.path.join(work_root, name)
        os.makedirs(work)
        model_path = os.path.join(work, "model.onnx")
        module = export(kind, kwargs, shapes[0], dynamic, model_path)
        rng = np.random.default_rng(SEED)
        so = os.path.join(work, "model.so")
        r = e2e.run_command([args.kiln, "compile", model_path, "-o", so, "--cpu", "native"],
                            timeout=600)
        if r.returncode != 0:
            print(f"FAIL {name}: kiln compile: {r.first_error_line()}")
            failed += 1
            continue
        seen = []  # (input, ORT outputs) per shape
        for k, shape in enumerate(shapes):
            x = rng.standard_normal(shape).astype(np.float32)
            if kind == "LSTM+If":
                # One input of each sign of sum(x): both branches run.
                x = np.abs(x) * (1 if k == 0 else -1)
            xin = os.path.join(work, f"x{k}.npy")
            np.save(xin, x)
            with torch.no_grad():
                out = module(torch.from_numpy(x))
                ref = [t.numpy() for t in
                       ([out] if isinstance(out, torch.Tensor) else
                        [out[0]] + (list(out[1]) if isinstance(out[1], tuple) else [out[1]]))]
            rr, ort_paths = e2e.ort_run(model_path, [xin], os.path.join(work, f"ort{k}"),
                                        ort_dir=args.ort_dir,
                                        extra=["--opt-level", "disabled"])
            if rr.returncode != 0:
                print(f"FAIL {name} {shape}: ONNX Runtime: {rr.first_error_line()}")
                failed += 1
                continue
            ort = [np.load(p) for p in ort_paths]
            seen.append((x, ort))
            outs = [os.path.join(work, f"kiln{k}_{i}.npy") for i in range(len(ort))]
            argv = [args.kiln, "run", so, "--input", xin]
            for p in outs:
                argv += ["--output", p]
            rk = e2e.run_command(argv, timeout=600)
            if rk.returncode != 0:
                print(f"FAIL {name} {shape}: kiln run: {rk.first_error_line()}")
                failed += 1
                continue
            problems = []
            worst = 0.0
            for i, o in enumerate(ort):
                if i < len(ref):
                    _, export_err = e2e.relative_error(ref[i], o)
                    if export_err > args.tol:
                        problems.append(f"output {i}: torch and ORT differ by "
                                        f"{export_err:.3g}")
                got = e2e.load_tensor(outs[i])
                if got.shape != o.shape:
                    problems.append(f"output {i}: shape {got.shape} != {o.shape}")
                    continue
                _, rel = e2e.relative_error(got, o)
                worst = max(worst, rel)
                if rel > args.tol:
                    problems.append(f"output {i}: max rel err {rel:.3g}")
            ok = not problems
            print(f"{'PASS' if ok else 'FAIL'} {name} {list(shape)}: "
                  + (f"max rel err {worst:.3g}" if ok else "; ".join(problems)), flush=True)
            passed += ok
            failed += not ok
        if runtime and len(seen) > 1:
            ok, msg = check_one_context(runtime, so, seen, args.tol)
            print(f"{'PASS' if ok else 'FAIL'} {name} one context: {msg}", flush=True)
            passed += ok
            failed += not ok
    if args.keep:
        print(f"work dir: {work_root}")
    else:
        shutil.rmtree(work_root, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
