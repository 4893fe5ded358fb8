"""Checks the Loop models of make_loop.py against a float64 NumPy loop.

    /usr/bin/python3 check_loop.py DIR while V.npy N.npy
    /usr/bin/python3 check_loop.py DIR scan Y.npy YS.npy
"""
import os
import sys

import numpy as np

d, which = sys.argv[1], sys.argv[2]
if which == "while":
    v = np.load(os.path.join(d, "v0.npy")).astype(np.float64)
    limit = float(np.load(os.path.join(d, "limit.npy")))
    n, i, go = 0, 0, True
    while i < 10 and go:
        v = v * 2 + i
        go = v.sum() < limit
        n += 1
        i += 1
    refs = [v, np.array(n)]
else:
    y = np.load(os.path.join(d, "y0.npy")).astype(np.float64)
    ys = []
    for i in range(4):
        ys.append(y * i)
        y = y + 1
    refs = [y, np.stack(ys)]
for path, ref in zip(sys.argv[3:5], refs):
    got = np.load(path)
    err = np.abs(got.astype(np.float64) - ref).max()
    print(f"{os.path.basename(path)}: shape {got.shape}, max abs error {err:.2e}")
    if got.shape != ref.shape or err > 1e-5:
        sys.exit(1)
