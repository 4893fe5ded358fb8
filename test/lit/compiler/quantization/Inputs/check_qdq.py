"""Checks a `kiln quantize` output against its calibration samples, without
kiln: python3 check_qdq.py Q.onnx FP32.onnx SAMPLES_DIR INPUT_NAME.

- The graph input's QuantizeLinear has scale (max - min) / 255 and zero point
  round(-min / scale) of the samples' range widened to include 0 (minmax).
- Every int8 weight times its scale (per channel along DequantizeLinear's
  axis, or one scale) is within half a step of the fp32 weight it replaces,
  and the largest magnitude of each channel maps to +-127.
Exits 1 with the first difference."""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

q, ref = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
samples = [np.load(os.path.join(sys.argv[3], f)) for f in sorted(os.listdir(sys.argv[3]))]
name = sys.argv[4]
inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
ref_inits = {t.name: numpy_helper.to_array(t) for t in ref.graph.initializer}

lo = min(0.0, min(float(s.min()) for s in samples))
hi = max(0.0, max(float(s.max()) for s in samples))
qx = [n for n in q.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == name]
if len(qx) != 1:
    sys.exit(f"{len(qx)} QuantizeLinear nodes read {name}")
scale, zp = float(inits[qx[0].input[1]]), int(inits[qx[0].input[2]])
if not np.isclose(scale, (hi - lo) / 255, rtol=1e-6) or zp != round(-lo / scale):
    sys.exit(f"{name}: scale {scale} zero point {zp}, expected {(hi - lo) / 255} {round(-lo / scale)}")
if inits[qx[0].input[2]].dtype != np.uint8:
    sys.exit(f"{name}: zero point is {inits[qx[0].input[2]].dtype}, expected uint8")

checked = 0
for n in q.graph.node:
    if n.op_type != "DequantizeLinear" or n.input[0] not in inits:
        continue
    w8, s = inits[n.input[0]], inits[n.input[1]]
    if w8.dtype != np.int8:
        continue
    original = n.input[0][:-len("_quantized")]
    w = ref_inits[original]
    axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
    shape = [1] * w.ndim
    if s.ndim:
        shape[axis] = -1
    s = s.reshape(shape)
    err = np.abs(w8.astype(np.float64) * s - w)
    if not (err <= s / 2 + 1e-7).all():
        sys.exit(f"{original}: dequantized weights off by {err.max()}")
    reduce = tuple(d for d in range(w.ndim) if not s.ndim or d != axis)
    if not (np.abs(w8).max(axis=reduce) == 127).all():
        sys.exit(f"{original}: some channel's largest weight is not +-127")
    checked += 1
if checked == 0:
    sys.exit("no int8 weights")
print(f"ok: {name} scale {scale:.6g} zero point {zp}; {checked} weights")
