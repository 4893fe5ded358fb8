"""Checks the outputs of scan.onnx (make_scan.py) against float64 NumPy.

    /usr/bin/python3 check_scan.py DIR s_final.npy p_final.npy ys.npy
"""
import os
import sys

import numpy as np

d = sys.argv[1]
load = lambda n: np.load(os.path.join(d, n + ".npy")).astype(np.float64)  # noqa: E731
s, p, x, u = load("s0"), load("p0"), load("x"), load("u")
T = x.shape[1]
ys = np.zeros((4, T))
for t in range(T):
    s = s + x[:, t] * u[T - 1 - t]
    p = p * 0.5 + x[:, t]
    ys[:, T - 1 - t] = s
for name, ref in zip(("s_final", "p_final", "ys"), (s, p, ys)):
    got = np.load(sys.argv[2 + ("s_final", "p_final", "ys").index(name)])
    err = np.abs(got - ref).max()
    print(f"{name}: max abs error {err:.2e}")
    if got.shape != ref.shape or err > 1e-5:
        sys.exit(1)
