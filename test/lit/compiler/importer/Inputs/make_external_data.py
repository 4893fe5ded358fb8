"""Writes MatMul+Add models whose weights are ONNX external data, into DIR:

  good/model.onnx + good/weights.bin  both initializers in one file, at offsets
  good/x.npy, good/ref.npy            an input and the float64 reference
  escape/model.onnx                   location '../outside.bin'
  absolute/model.onnx                 location '/etc/hostname'
  symlink/model.onnx                  location 'link.bin', a link out of the folder
  bounds/model.onnx                   offset + length past the end of the file

    /usr/bin/python3 make_external_data.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
rng = np.random.default_rng(3)
w = rng.standard_normal((8, 5)).astype(np.float32)
b = rng.standard_normal((5,)).astype(np.float32)
x = rng.standard_normal((2, 8)).astype(np.float32)


def external(name, array, location, offset, length=None):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(array.shape)
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location), ("offset", str(offset)),
               ("length", str(array.nbytes if length is None else length))]
    for k, v in entries:
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def write(folder, w_location="weights.bin", w_length=None):
    os.makedirs(os.path.join(out, folder), exist_ok=True)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
         helper.make_node("Add", ["m", "b"], ["y"], name="add")],
        "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [external("w", w, w_location, 64, w_length),
         external("b", b, "weights.bin", 64 + w.nbytes)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with open(os.path.join(out, folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    with open(os.path.join(out, folder, "weights.bin"), "wb") as f:
        f.write(b"\0" * 64 + w.tobytes() + b.tobytes())


write("good")
np.save(os.path.join(out, "good", "x.npy"), x)
np.save(os.path.join(out, "good", "ref.npy"), x.astype(np.float64) @ w + b)
write("escape", "../outside.bin")
with open(os.path.join(out, "outside.bin"), "wb") as f:
    f.write(b"\0" * 64 + w.tobytes())
write("absolute", "/etc/hostname")
write("symlink", "link.bin")
os.symlink(os.path.join(out, "outside.bin"), os.path.join(out, "symlink", "link.bin"))
write("bounds", "weights.bin", 4096)
