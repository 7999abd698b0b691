"""Summaries of a GPU session's files (scripts/gpu.sh): one place for the JSON reading that the
device scripts did in inline Python snippets. Standard library only: the device machine's Python
has no extra packages we can count on. `python3 -m sbgpu --help` (with scripts/ on PYTHONPATH)."""
