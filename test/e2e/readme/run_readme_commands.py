#!/usr/bin/python3
"""Runs the README's use commands as written, from a clean directory.

    /usr/bin/python3 test/e2e/readme/run_readme_commands.py --build build

Takes every `build/bin/kiln ...` command from the README's "Set up and use"
block (also the ones after `# then:`), runs each literally with /bin/sh in a
fresh directory holding `model.onnx` (y = relu(x W + b)), `x.npy` and a link
`build` to the build tree, and checks that they succeed and that y.npy
matches a float64 NumPy reference. Prints `N passed, N failed`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def readme_commands(path):
    text = open(path).read()
    block = re.search(r"## Set up and use\s+```sh\n(.*?)```", text, re.S)
    if not block:
        raise SystemExit("README has no 'Set up and use' sh block")
    commands = []
    for line in block.group(1).splitlines():
        for part in re.split(r"#\s*then:", line):
            part = re.sub(r"\s+#.*$", "", part.strip())  # a trailing comment
            if part.startswith("build/bin/kiln"):
                commands.append(part)
    return commands


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    a = ap.parse_args()
    commands = readme_commands(a.readme)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as d:
        rng = np.random.default_rng(1)
        w = rng.standard_normal((6, 4)).astype(np.float32)
        b = rng.standard_normal(4).astype(np.float32)
        x = rng.standard_normal((3, 6)).astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["m"]),
             helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])],
            "readme",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 6])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
            [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                  os.path.join(d, "model.onnx"))
        np.save(os.path.join(d, "x.npy"), x)
        os.symlink(os.path.abspath(a.build), os.path.join(d, "build"))
        for cmd in commands:
            r = subprocess.run(["/bin/sh", "-c", cmd], cwd=d, capture_output=True, text=True)
            if r.returncode:
                failed += 1
                print(f"FAIL {cmd}\n{r.stderr.strip()}")
            else:
                passed += 1
                print(f"PASS {cmd}")
        out = os.path.join(d, "y.npy")
        ref = np.maximum(x.astype(np.float64) @ w + b, 0)
        if os.path.isfile(out) and np.allclose(np.load(out), ref, rtol=1e-5, atol=1e-6):
            passed += 1
            print("PASS y.npy matches the float64 reference")
        else:
            failed += 1
            print("FAIL y.npy is missing or differs from the float64 reference")
    if len(commands) < 2:
        failed += 1
        print(f"FAIL expected a compile and a run command in the README, found {commands}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
