"""The CI time gate's A/A figures (scripts/ab-aa.sh): from the compare-ab.json of A/A runs (one
binary as base and candidate), per stage the spread of process medians and the largest A/A ratio
seen, and the rule's estimated false-alarm rate. The estimate resamples the stage's pooled
process medians into two sides of R each, as an A/A run would draw them, and applies
compare-ab's rule (ratio of medians >= SLOWER, ranges disjoint, candidate above); a gate run
alarms when any stage does, so its rate is 1 - prod(1 - p_stage) over the stages.

Usage: python3 scripts/ab_aa_summary.py RUN/compare-ab.json...
"""
import json
import random
import statistics
import sys


def main(paths):
    pooled, ratios, slower, rounds = {}, {}, 1.25, None
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        slower = d["slower"]
        for s in d["stages"]:
            key = s["run"] + " " + s["stage"]
            pooled.setdefault(key, []).extend(s["base_ms"] + s["candidate_ms"])
            ratios.setdefault(key, []).append(s["ratio"])
            rounds = len(s["base_ms"])
    if not pooled:
        sys.exit("no stages in " + " ".join(paths))
    rng = random.Random(1)
    draws = 20000
    print(f"{len(paths)} A/A runs, {rounds} processes a side, rule: ratio >= {slower} with "
          f"disjoint ranges; {draws} resampled A/A pairs a stage")
    print(f"{'stage':48} {'cv of process medians':>22} {'largest A/A ratio':>18} {'p(alarm)':>9}")
    keep = 1.0
    for key in sorted(pooled):
        v = pooled[key]
        cv = statistics.stdev(v) / statistics.mean(v)
        worst = max(max(r, 1 / r) for r in ratios[key])
        alarms = 0
        for _ in range(draws):
            draw = rng.sample(v, 2 * rounds)
            a, b = draw[:rounds], draw[rounds:]
            if statistics.median(b) / statistics.median(a) >= slower and min(b) > max(a):
                alarms += 1
        p = alarms / draws
        keep *= 1 - p
        print(f"{key:48} {cv:>21.1%} {worst:>17.3f}x {p:>9.4f}")
    print(f"estimated false-alarm rate of a gate run: {1 - keep:.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
