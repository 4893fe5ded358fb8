"""Checks kiln's output of conv_dynamic_hw.onnx (two 3x3 all-ones filters over
one channel, pads 1) against a numpy box sum: python3 box_sum_check.py X.npy Y.npy"""
import sys

import numpy as np

x, y = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2])
p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
h, w = x.shape[2:]
ref = sum(p[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3))
ref = np.repeat(ref, 2, axis=1)
if y.shape != ref.shape or not np.allclose(y, ref, rtol=1e-5, atol=1e-5):
    sys.exit(f"shape {y.shape} vs {ref.shape}, max err "
             f"{np.abs(y - ref).max() if y.shape == ref.shape else 'n/a'}")
print(f"ok {list(y.shape)}")
