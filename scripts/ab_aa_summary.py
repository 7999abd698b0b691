"""The CI time gate's A/A figures (scripts/ab-aa.sh): from the compare-ab.json of A/A runs (one
binary as base and candidate), per stage the spread of the paired ratios and the largest A/A
median ratio seen, and the rule's estimated false-alarm rate. The estimate draws R pairs from the
stage's pooled A/A paired ratios (with replacement), as an A/A run would get them, and applies
compare-ab's rule (median ratio >= SLOWER and the order-statistic interval above 1x: for R < 6,
every ratio above 1); a gate run alarms when any stage does, so its rate is
1 - prod(1 - p_stage) over the stages.

Usage: python3 scripts/ab_aa_summary.py RUN/compare-ab.json...
"""
import json
import math
import random
import statistics
import sys


def interval_lo(ratios):
    """The low end of the median's order-statistic interval (stats/statistics.h): the k-th
    smallest, k the largest with P(Binomial(n, 1/2) <= k - 1) <= 2.5%, else the minimum."""
    n, r = len(ratios), sorted(ratios)
    k, cdf = 1, 0.0
    for j in range(n):
        cdf += math.comb(n, j) / 2 ** n
        if cdf > 0.025:
            break
        k = j + 1
    return r[k - 1]


def main(paths):
    pooled, medians, slower, rounds = {}, {}, 1.25, None
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        slower = d["slower"]
        for s in d["stages"]:
            key = s["run"] + " " + s["stage"]
            pairs = [c / b for b, c in zip(s["base_ms"], s["candidate_ms"])]
            pooled.setdefault(key, []).extend(pairs)
            medians.setdefault(key, []).append(s["ratio"])
            rounds = len(pairs)
    if not pooled:
        sys.exit("no stages in " + " ".join(paths))
    rng = random.Random(1)
    draws = 20000
    print(f"{len(paths)} A/A runs, {rounds} pairs a stage; rule: median paired ratio >= {slower} "
          f"with its interval above 1x; {draws} resampled A/A runs a stage")
    print(f"{'stage':40} {'paired ratios p5-p95':>22} {'A/A medians':>16} {'p(alarm)':>9}")
    keep = 1.0
    for key in sorted(pooled):
        v = sorted(pooled[key])
        p5, p95 = v[int(0.05 * (len(v) - 1))], v[int(0.95 * (len(v) - 1))]
        lo, hi = min(medians[key]), max(medians[key])
        alarms = 0
        for _ in range(draws):
            d = [rng.choice(v) for _ in range(rounds)]
            if statistics.median(d) >= slower and interval_lo(d) > 1:
                alarms += 1
        p = alarms / draws
        keep *= 1 - p
        print(f"{key:40} {f'[{p5:.3f}, {p95:.3f}]':>22} {f'[{lo:.3f}, {hi:.3f}]':>16} {p:>9.5f}")
    print(f"estimated false-alarm rate of a gate run: {1 - keep:.5f}")


if __name__ == "__main__":
    main(sys.argv[1:])
