"""Checks y.npy against relu(x @ w + bias) of dense.onnx in float64.

    /usr/bin/python3 check_dense.py dense.onnx x.npy y.npy
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

model, x, y = sys.argv[1:4]
w = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in onnx.load(model).graph.initializer}
ref = np.maximum(np.load(x).astype(np.float64) @ w["w"] + w["bias"], 0)
got = np.load(y)
err = np.abs(got - ref).max() / np.abs(ref).max()
print(f"max relative error {err:.2e}")
sys.exit(0 if got.shape == ref.shape and err < 1e-5 else 1)
