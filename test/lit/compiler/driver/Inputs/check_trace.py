"""Checks a `kiln profile --trace` file: valid JSON in Chrome's trace format,
RUNS whole-run events, and kernel events for every node named after it,
each inside a run."""
import json
import sys

trace = json.load(open(sys.argv[1]))
runs_expected, nodes = int(sys.argv[2]), sys.argv[3:]
events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
runs = [e for e in events if e["cat"] == "run"]
kernels = [e for e in events if e["cat"] != "run"]
assert len(runs) == runs_expected, f"{len(runs)} runs, expected {runs_expected}"
for node in nodes:
    got = [e for e in kernels if e["name"] == node]
    assert got, f"no kernel event for {node}"
    assert all(e["args"]["kernel"] for e in got)
for k in kernels:
    assert k["dur"] >= 0
    assert any(r["ts"] <= k["ts"] and k["ts"] + k["dur"] <= r["ts"] + r["dur"] + 1e-3
               for r in runs), f"kernel {k['name']} outside every run"
print(f"trace ok: {len(runs)} runs, {len(kernels)} kernel events")
