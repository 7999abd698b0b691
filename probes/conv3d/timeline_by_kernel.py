#!/usr/bin/env python3
"""Sums a `stagebench run --timeline` file's device commands by kernel name, per stage (issue 27).
Usage: timeline_by_kernel.py TRACE [TOP]. The first name of `python3 -m sbgpu kernels`
(scripts/sbgpu/timeline.py), kept because committed READMEs cite it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from sbgpu.__main__ import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["kernels"] + sys.argv[1:]))
