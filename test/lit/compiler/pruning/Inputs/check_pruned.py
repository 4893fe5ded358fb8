"""check_pruned.py ORIGINAL PRUNED PATTERN SPARSITY [--dense NAME...]
Checks a `kiln prune` result against the original weights: only zeros were
introduced; for unstructured pruning the zeroed weights are the smallest
(no kept weight is smaller in magnitude than a zeroed one) and their share
is floor(sparsity * n); for 2:4, every group of four consecutive weights
along the reduction keeps exactly its two largest; for block:RxC, whole
blocks of the (output x reduction) view are zero and their share is
floor(sparsity * blocks). Tensors named after --dense are unchanged."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

orig_path, pruned_path, pattern, sparsity = sys.argv[1:5]
sparsity = float(sparsity)
dense = sys.argv[sys.argv.index("--dense") + 1:] if "--dense" in sys.argv else []
load = lambda p: {t.name: numpy_helper.to_array(t) for t in onnx.load(p).graph.initializer}
orig, pruned = load(orig_path), load(pruned_path)
# The (rows = outputs, cols = reduction) view of each weight.
views = {"wc": lambda w: w.reshape(w.shape[0], -1), "wm": lambda w: w.T,
         "wg": lambda w: w, "ws": lambda w: w.reshape(w.shape[0], -1)}
for name, w in orig.items():
    p = pruned[name]
    assert p.shape == w.shape and p.dtype == w.dtype, name
    changed = p != w
    assert np.all(p[changed] == 0), f"{name}: a value changed to non-zero"
    if name in dense:
        assert not changed.any(), f"{name} should stay dense"
        continue
    zero = p == 0
    if pattern == "unstructured":
        assert zero.sum() == int(np.floor(sparsity * w.size)), (name, zero.sum())
        assert np.abs(w[~zero]).min() >= np.abs(w[zero]).max(), name
    elif pattern == "2:4":
        v, z = views[name](w), views[name](zero)
        for r in range(v.shape[0]):
            for c in range(0, v.shape[1] - 2, 4):
                g, gz = np.abs(v[r, c:c + 4]), z[r, c:c + 4]
                assert gz.sum() == len(g) - 2, (name, r, c)
                assert g[~gz].min() >= g[gz].max(), (name, r, c)
    else:
        br, bc = map(int, pattern.split(":")[1].split("x"))
        z = views[name](zero)
        blocks = zero_blocks = 0
        for r in range(0, z.shape[0], br):
            for c in range(0, z.shape[1], bc):
                b = z[r:r + br, c:c + bc]
                blocks += 1
                # A block is pruned whole or not at all (a kept block may
                # hold zeros of its own only by chance: the weights are random).
                assert b.all() or not b.any(), (name, r, c)
                zero_blocks += bool(b.all())
        assert zero_blocks == int(np.floor(sparsity * blocks)), (name, zero_blocks, blocks)
    print(f"{name}: {zero.mean():.3f} zero")
