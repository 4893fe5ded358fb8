"""Checks cy.npy against conv.onnx's 3x3 convolution (pads 1) in float64.

    /usr/bin/python3 check_conv.py conv.onnx cx.npy cy.npy
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

model, xp, yp = sys.argv[1:4]
p = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in onnx.load(model).graph.initializer}
x = np.pad(np.load(xp).astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
h, w = x.shape[2] - 2, x.shape[3] - 2
ref = np.zeros((1, p["w"].shape[0], h, w)) + p["b"][None, :, None, None]
for i in range(3):
    for j in range(3):
        ref += np.einsum("nchw,oc->nohw", x[:, :, i:i + h, j:j + w], p["w"][:, :, i, j])
got = np.load(yp)
err = np.abs(got - ref).max() / np.abs(ref).max()
print(f"max relative error {err:.2e}")
sys.exit(0 if got.shape == ref.shape and err < 1e-5 else 1)
