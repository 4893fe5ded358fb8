"""Compares a model output with its reference.

    /usr/bin/python3 compare.py OUTPUT.npy REFERENCE.npy

Prints "match" when the shapes agree and the largest error is below 1e-4
relative to the reference's largest magnitude, otherwise the error.
"""
import sys

import numpy as np

out, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
if out.shape != ref.shape:
    print(f"shape mismatch: {out.shape} vs {ref.shape}")
    sys.exit(1)
err = np.abs(out.astype(np.float64) - ref).max() / max(np.abs(ref).max(), 1e-30)
print("match" if err < 1e-4 else f"max relative error {err:.3g}")
