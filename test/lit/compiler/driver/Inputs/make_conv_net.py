"""Writes DIR/net.onnx, a small CNN with named nodes (conv1 + relu1, conv2
with stride 2, gap, flat, fc with 1000 classes, softmax), DIR/x.npy and
DIR/ref.npy: the output computed in float64 by NumPy, independently of kiln."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
w1 = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
b1 = rng.standard_normal(8).astype(np.float32) * 0.1
w2 = rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2
b2 = rng.standard_normal(16).astype(np.float32) * 0.1
wf = rng.standard_normal((16, 1000)).astype(np.float32) * 0.5
bf = rng.standard_normal(1000).astype(np.float32) * 0.1
x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)

nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                     pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
    helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2",
                     pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("GlobalAveragePool", ["c2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flat"),
    helper.make_node("Gemm", ["f", "wf", "bf"], ["l"], name="fc"),
    helper.make_node("Softmax", ["l"], ["y"], name="softmax", axis=1),
]
inits = [numpy_helper.from_array(a, n) for a, n in
         [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (wf, "wf"),
          (bf, "bf")]]
graph = helper.make_graph(
    nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                 [1, 3, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1000])], inits)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "net.onnx"))


def conv(x, w, b, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j])
    return y + b.reshape(1, m, 1, 1)


f64 = lambda a: a.astype(np.float64)
h = np.maximum(conv(f64(x), f64(w1), f64(b1), 1, 1), 0)
h = conv(h, f64(w2), f64(b2), 2, 1).mean(axis=(2, 3))
logits = h @ f64(wf) + f64(bf)
e = np.exp(logits - logits.max(axis=1, keepdims=True))
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "ref.npy"), e / e.sum(axis=1, keepdims=True))
