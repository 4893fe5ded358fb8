#!/usr/bin/env python3
"""A `kiln tune --runner` stand-in for tests: runs the real kiln_measure
command it is given, then changes what the tuner sees.

  fake_runner.py MODE LOG -- kiln_measure ARGS...   (the tuner appends the
                                                     command after MODE LOG)
MODE:
  count         pass through; append one line per call to LOG
  fake-time     replace the time of a candidate with a number derived from
                its schedule file (candidateN.json beside candidateN.so), so
                two sweeps rank candidates identically; the default is 1 ms
  smooth-time   replace the time of a candidate with a smooth function of its
                schedule's fields (1 ms at a hidden optimum, more the farther
                away in log2 terms), which a cost model can learn; the
                default is 4 ms
  corrupt       add 1.0 to the first output sample of every candidate
  crash         every candidate dies of SIGSEGV
  hang          every candidate sleeps past any timeout
  kill-after:N  SIGKILL the tuner (the runner's parent) on call N
The default schedule's library (default.so) and `--device` always pass.
"""
import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import time

mode, log, command = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(log, "a") as f:
    f.write(" ".join(command) + "\n")
library = next((a for a in command if a.endswith(".so")), "")
candidate = library and not library.endswith("default.so")

if mode.startswith("kill-after:"):
    with open(log) as f:
        calls = sum(1 for _ in f)
    if calls == int(mode.split(":")[1]):
        os.kill(os.getppid(), signal.SIGKILL)
        sys.exit(1)
if candidate and mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
if candidate and mode == "hang":
    time.sleep(600)

result = subprocess.run(command, capture_output=True, text=True)
sys.stderr.write(result.stderr)
out = []
for line in result.stdout.splitlines():
    words = line.split(" ")
    if mode == "fake-time" and words[0] == "median_ns" and library:
        ns = 1e6
        if candidate:
            with open(library[:-3] + ".json", "rb") as f:
                digest = hashlib.sha256(f.read().split(b":", 1)[1]).digest()
            ns = 5e5 + int.from_bytes(digest[:4], "little") % 1000000
        words[1] = "%.0f" % ns
    if mode == "smooth-time" and words[0] == "median_ns" and library:
        ns = 4e6
        if candidate:
            with open(library[:-3] + ".json") as f:
                schedule = next(iter(json.load(f).values()))
            optimum = {"reg_m": 4, "reg_n": 16, "tile_m": 64, "tile_n": 128,
                       "tile_k": 128, "accumulators": 8, "loop_order": 1}
            distance = sum((math.log2(max(schedule[k], 1)) - math.log2(v)) ** 2
                           for k, v in optimum.items() if k in schedule)
            ns = 1e6 * (1 + distance)
        words[1] = "%.0f" % ns
    if mode == "corrupt" and candidate and words[0] == "sample":
        words[2] = float.hex(float.fromhex(words[2]) + 1.0)
    out.append(" ".join(words))
print("\n".join(out))
sys.exit(result.returncode)
