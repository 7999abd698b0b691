#!/usr/bin/env python3
"""What varies in a CPU ladder's samples (docs/method.md, "Noise at 16 threads";
scripts/cpu-server.sh): for each stage of each result, the samples, median, p10-p90 spread, the
relative noise of the median (the noise criterion's figure, as stats/statistics.cpp computes it),
that noise replayed on the rounds an earlier budget would have stopped at, the noise left when
each round's common factor (the median over the ladder's other stages of sample / stage median)
is divided out (what is left of it without the machine's drift, which moves the stages of a
round alike), the first ten samples against the rest, and the drift of ten-sample blocks.

  cpu_server_noise.py [--old-time S] [--old-samples N] RESULT.json...

The replay is exact for the noise criterion: the runner samples every stage once a round, so the
first k rounds of a longer run are the samples a run with a smaller budget would have stopped on
(its budget: --old-time seconds of measuring, summed over the rounds' samples, or --old-samples
rounds, whichever comes first; 25 s and 100, srv28-2026-11-28 call2's).
"""
import argparse
import json
import math
import statistics
import sys


def binomial_half_cdf(n, k):
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n


def relative_median_noise(values):
    """Half-width of the median's distribution-free 95% interval over the median (order
    statistics k and n-k+1 with the largest k whose tail is <= 2.5%; min-max below 6 values)."""
    n = len(values)
    if n < 2:
        return math.inf
    s = sorted(values)
    k = 0
    for cand in range(1, (n + 1) // 2 + 1):
        if binomial_half_cdf(n, cand - 1) <= 0.025:
            k = cand
        else:
            break
    lo, hi = (s[0], s[-1]) if k == 0 else (s[k - 1], s[n - k])
    median = statistics.median(s)
    return math.inf if median == 0 else (hi - lo) / 2 / abs(median)


def quantile(sorted_values, p):
    """Type 7, as stats/statistics.cpp's quantile_sorted."""
    h = (len(sorted_values) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def old_rounds(stages, seconds, samples):
    """Rounds a budget of `seconds` of measuring (or `samples` rounds) would have run."""
    rounds = min(len(s) for s in stages) if stages else 0
    spent = 0.0
    for r in range(rounds):
        spent += sum(s[r] for s in stages) / 1e3
        # the runner checks the time after each round, so the round that crosses it counts
        if spent >= seconds or r + 1 >= samples:
            return r + 1
    return rounds


def round_factors(stages, i):
    """Stage i's rounds' common factors: the median over the other stages of sample / that
    stage's median (leaving stage i out, so that its own noise does not divide itself out). With
    fewer than three stages there is no telling a round's drift from a stage's noise: None."""
    if len(stages) < 3:
        return None
    rounds = min(len(s) for s in stages)
    others = [(s, statistics.median(s)) for j, s in enumerate(stages) if j != i]
    return [statistics.median(s[r] / m for s, m in others) for r in range(rounds)]


def pct(x):
    return "inf" if not math.isfinite(x) else f"{100 * x:.1f}%"


def report(path, old_time, old_samples, target=0.01):
    doc = json.load(open(path))
    lines = [f"# {path}"]
    for run in doc.get("runs", []):
        stages = [s for s in run["stages"] if s.get("samples_ms")]
        k = old_rounds([s["samples_ms"] for s in stages], old_time, old_samples)
        lines.append(f"## {run['model']} {run['size']} {run['backend']}: {len(stages)} measured "
                     f"stages; the old budget ({old_time:g} s / {old_samples}) = {k} rounds")
        lines.append("| stage | n | median ms | (p90-p10) / median | noise | verdict | noise at "
                     f"{k} rounds | round drift divided out | first 10 / rest | "
                     "block medians / median |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for i, s in enumerate(stages):
            x = s["samples_ms"]
            factors = round_factors([t["samples_ms"] for t in stages], i)
            q = sorted(x)
            med = statistics.median(x)
            noise, old = relative_median_noise(x), relative_median_noise(x[:k])
            first = statistics.median(x[:10]) / statistics.median(x[10:]) if len(x) > 10 else 1
            blocks = " ".join(f"{statistics.median(x[i:i + 10]) / med:.3f}"
                              for i in range(0, len(x), 10))
            verdict = s.get("status", "?")
            steady = (pct(relative_median_noise([v / f for v, f in zip(x, factors)]))
                      if factors else "-")
            lines.append(
                f"| {s['id']} | {len(x)} | {med:.2f} | "
                f"{pct((quantile(q, 0.9) - quantile(q, 0.1)) / med)} | {pct(noise)} | {verdict} | "
                f"{pct(old)} ({'ok' if old <= target else 'invalid'}) | {steady} | {first:.3f} | "
                f"{blocks} |")
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--old-time", type=float, default=25.0)
    ap.add_argument("--old-samples", type=int, default=100)
    a = ap.parse_args(argv)
    print("\n\n".join(report(p, a.old_time, a.old_samples) for p in a.results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
