"""The first name of `python3 -m sbgpu pairs DIR` (results/h200/wgmma-ops-2026-11-27 cites it)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sbgpu.pairs import main  # noqa: E402

if __name__ == "__main__":
    main(sys.argv[1])
