"""Exits 0 iff ACTUAL.npy matches the float64 REF.npy within 1e-4 relative
(of the reference's largest magnitude) and has its shape."""
import sys

import numpy as np

a, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
if a.shape != ref.shape:
    sys.exit(f"shape {a.shape} vs {ref.shape}")
err = np.max(np.abs(a.astype(np.float64) - ref)) / max(np.max(np.abs(ref)), 1e-30)
print(f"max relative error {err:.2e}")
sys.exit(0 if err <= 1e-4 else 1)
