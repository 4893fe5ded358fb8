"""reference.py MODEL X Y: evaluates make_prunable's graph (Conv stride 2
pad 1, Flatten, MatMul, Gemm transB) in float64 NumPy with MODEL's weights and
checks Y within 1e-4 relative."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

w = {t.name: numpy_helper.to_array(t).astype(np.float64)
     for t in onnx.load(sys.argv[1]).graph.initializer}
x = np.load(sys.argv[2]).astype(np.float64)
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
c = np.zeros((1, 16, 6, 12))
for i in range(3):
    for j in range(3):
        c += np.einsum("nchw,mc->nmhw", xp[:, :, i:i + 12:2, j:j + 24:2], w["wc"][:, :, i, j])
y = (c.reshape(1, -1) @ w["wm"]) @ w["wg"].T
got = np.load(sys.argv[3])
err = np.abs(got - y).max() / np.abs(y).max()
print(f"max relative error {err:.2e}")
sys.exit(0 if err <= 1e-4 else 1)
