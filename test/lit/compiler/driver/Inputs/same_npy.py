"""Exits 0 iff two .npy files hold the same dtype, shape and values."""
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
same = a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
print("same" if same else f"differ: {a!r} vs {b!r}")
sys.exit(0 if same else 1)
