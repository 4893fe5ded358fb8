"""Checks a `kiln profile` table and trace of a model whose kernels nest (a
serial loop over K blocks calling a parallel kernel per block): every
enclosing kernel keeps its own begin time (it starts before the first kernel
inside it), and the table counts each nanosecond once (the nodes' times add
up to at most the run's)."""
import json
import re
import sys

table, trace = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
run_ms = float(re.search(r"([0-9.]+) ms per run", table).group(1))
rows = [l.split() for l in table.splitlines()[2:] if len(l.split()) >= 7]
node_ms = sum(float(r[-3]) for r in rows if r and r[0] != "(outside")
assert node_ms <= run_ms * 1.001 + 1e-4, f"nodes {node_ms} ms > run {run_ms} ms"

kernels = [e for e in trace["traceEvents"]
           if e.get("ph") == "X" and e["cat"] != "run"]
nested = 0
for outer in kernels:
    inner = [k for k in kernels if k is not outer
             and outer["ts"] <= k["ts"]
             and k["ts"] + k["dur"] <= outer["ts"] + outer["dur"]]
    if not inner:
        continue
    nested += 1
    first = min(k["ts"] for k in inner)
    assert outer["ts"] < first, (
        f"{outer['args']['kernel']} begins with {first}: its begin was lost")
assert nested, "no kernel encloses another"
print(f"nesting ok: {nested} enclosing kernel events, nodes {node_ms:.4f} of "
      f"{run_ms:.4f} ms")
