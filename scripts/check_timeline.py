"""Checks a `stagebench run --timeline` file against the run it came from, as
tests/cli/cli_test.cpp does (expect_timeline_of), for runs made where the tests are not built
(the GPU machines): every event is a well-formed Trace Event Format event on a named track, each
measured stage has one captured sample, and each sample's device commands add up to a device
time within the stage's opencl.device_ms [min, max].

Usage: python3 scripts/check_timeline.py RESULT.json TIMELINE.json   (exit 1 on any problem)
Prints one line per stage: run, stage, commands, device ms of the sample, the stage's range.
"""
import json
import sys


def main(result_path, trace_path):
    result = json.load(open(result_path))
    trace = json.load(open(trace_path))
    problems = []
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        print("no traceEvents array")
        return 1
    named_p, named_t, used = set(), set(), set()
    for e in events:
        if not all(k in e for k in ("ph", "name", "pid", "tid")):
            problems.append("event without ph, name, pid or tid: %s" % json.dumps(e)[:100])
            continue
        if e["ph"] == "M":
            (named_p if e["name"] == "process_name" else named_t).add(
                e["pid"] if e["name"] == "process_name" else (e["pid"], e["tid"]))
        elif e["ph"] == "X":
            if not (e.get("ts", -1) >= 0 and e.get("dur", -1) >= 0):
                problems.append("complete event without ts/dur >= 0: %s" % json.dumps(e)[:100])
            used.add((e["pid"], e["tid"]))
        else:
            problems.append("unexpected phase %r" % e["ph"])
    for pid, tid in sorted(used):
        if pid not in named_p or (pid, tid) not in named_t:
            problems.append("track %d/%d unnamed" % (pid, tid))
    pids = {e["args"]["name"]: e["pid"] for e in events
            if e.get("ph") == "M" and e["name"] == "process_name"}
    for run in result["runs"]:
        label = "%s/%s/%s" % (run["model"], run["size"], run["backend"])
        pid = pids.get(label)
        if pid is None:
            problems.append("%s: no process in the trace" % label)
            continue
        for s in run["stages"]:
            if s["status"] in ("skipped", "failed"):
                continue
            mine = [e for e in events if e.get("ph") == "X" and e["pid"] == pid
                    and e["args"].get("stage") == s["id"]]
            samples = [e for e in mine if e.get("cat") == "sample"]
            device_ms = sum(e["dur"] for e in mine if e.get("cat") == "device") / 1e3
            if len(samples) != 1:
                problems.append("%s %s: %d captured samples" % (label, s["id"], len(samples)))
            line = "%s %-24s %5d commands  %10.4f ms" % (
                label, s["id"], sum(1 for e in mine if e.get("cat") == "device"), device_ms)
            if isinstance(s.get("opencl"), dict):
                lo, hi = s["opencl"]["device_ms"]["min"], s["opencl"]["device_ms"]["max"]
                line += "  stage device_ms [%.4f, %.4f]" % (lo, hi)
                if not lo * (1 - 1e-9) <= device_ms <= hi * (1 + 1e-9):
                    problems.append("%s %s: the sample's commands add to %.6f ms, outside "
                                    "[%.6f, %.6f]" % (label, s["id"], device_ms, lo, hi))
            print(line)
    for p in problems:
        print("problem:", p)
    print("%d events, %d problems" % (len(events), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
