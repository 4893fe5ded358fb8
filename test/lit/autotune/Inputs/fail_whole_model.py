#!/usr/bin/env python3
"""A `kiln tune --measure-tool` stand-in: runs the real kiln_measure
($KILN_REAL_MEASURE), except on the whole model's library (model-cache.so),
which it fails as a model without static input dims would."""
import os
import sys

real, args = os.environ["KILN_REAL_MEASURE"], sys.argv[1:]
if any(a.endswith("model-cache.so") for a in args):
    sys.stderr.write("kiln_measure: dynamic input dims cannot be measured: x\n")
    sys.exit(1)
os.execv(real, [real] + args)
