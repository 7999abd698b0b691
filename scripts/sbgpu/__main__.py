"""`python3 -m sbgpu COMMAND ...` with scripts/ on PYTHONPATH: the summaries scripts/gpu.sh logs.
A missing or malformed input file is an error naming it (exit 2)."""
import argparse
import json
import sys

from . import checks, pairs, runs, timeline


def _json(path):
    with open(path) as f:
        return json.load(f)


def _commands():
    p = argparse.ArgumentParser(prog="sbgpu", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("kernels", help="a --timeline trace (.json or .json.gz) summed per kernel")
    c.add_argument("trace")
    c.add_argument("top", nargs="?", type=int, default=25)
    c = sub.add_parser("ceiling-args", help="--ceiling arguments, one a line, from the ceilings' output")
    c.add_argument("file")
    c = sub.add_parser("stage", help="each file's first stage: status, median, GFLOP/s, tuning")
    c.add_argument("files", nargs="+")
    c = sub.add_parser("ladder", help="each file's stage medians and PyTorch's best, a line each")
    c.add_argument("files", nargs="+")
    c = sub.add_parser("values", help="every value of KEY anywhere in the document, a line each")
    c.add_argument("file")
    c.add_argument("key")
    c = sub.add_parser("pairs", help="NAME-off.json against NAME-on.json tables for a folder")
    c.add_argument("folder")
    c = sub.add_parser("dynunet-check", help="dynunet_torch.py check's JSON as the log prints it")
    c.add_argument("file")
    c.add_argument("size")
    c.add_argument("backend", nargs="?", default="opencl")
    c = sub.add_parser("dynunet-selftest", help="dynunet_torch.py selftest's JSON, one line")
    c.add_argument("file")
    c = sub.add_parser("deepfm-check", help="deepfm_torch.py check's JSON, one line")
    c.add_argument("file")
    c.add_argument("size")
    return p


def main(argv=None):
    a = _commands().parse_args(argv)
    try:
        if a.command == "kernels":
            sys.stdout.write(timeline.format_sums(timeline.sum_by_kernel(
                timeline.load_events(a.trace)), a.top))
        elif a.command == "ceiling-args":
            with open(a.file) as f:
                print("\n".join(runs.ceiling_args(f.read())))
        elif a.command == "stage":
            print("\n".join(runs.stage_line(f) for f in a.files))
        elif a.command == "ladder":
            print("\n".join(runs.ladder_line(f) for f in a.files))
        elif a.command == "values":
            for v in runs.values_of(_json(a.file), a.key):
                print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
        elif a.command == "pairs":
            pairs.main(a.folder)
        elif a.command == "dynunet-check":
            print(checks.dynunet_check(_json(a.file), a.size, a.backend))
        elif a.command == "dynunet-selftest":
            print(checks.dynunet_selftest(_json(a.file)))
        elif a.command == "deepfm-check":
            print(checks.deepfm_check(_json(a.file), a.size))
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print(f"sbgpu {a.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
