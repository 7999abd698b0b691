"""CUDA-event timing for the PyTorch-side scripts, in one place so that every PyTorch figure set
beside ours is taken the same way. `torch` is passed in, so that the module imports without
PyTorch and its tests run with a stand-in (test_cuda_timing.py).

Two ways of timing, for two kinds of work:
- each_call_ms: every call between its own pair of events and followed by a synchronize, so that
  no call overlaps the next. For one op or one forward, whose time is its kernels' time.
- paced_steps_ms: a training loop in its steady state. After the warm-up, three calls give the
  pace; then as many steps as the budget allows (at least 10, at most max_steps, or fixed_steps)
  are issued back to back, each between its own pair of events, with one synchronize at the end,
  so that the host's launches overlap the device's work as in a real loop.

Both return the times sorted, in milliseconds; median() is the middle of them (the mean of the
two middle ones for an even count).
"""
import statistics
import time


def median(sorted_ms):
    return float(statistics.median(sorted_ms))


def _pair(torch):
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def each_call_ms(torch, fn, runs, warmup=3):
    """fn() timed runs times after warmup untimed calls; sorted ms."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = _pair(torch)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)


class Paced:
    """paced_steps_ms's result: the sorted times, how many steps, the warm-up's calls and
    seconds, and what the last timed step returned (a loss, for the scripts' checks)."""

    def __init__(self, ms, warmup_steps, warmup_s, last):
        self.ms, self.warmup_steps, self.warmup_s, self.last = ms, warmup_steps, warmup_s, last

    @property
    def steps(self):
        return len(self.ms)

    def summary(self):
        return {"median_ms": median(self.ms), "min_ms": self.ms[0], "max_ms": self.ms[-1],
                "steps": self.steps, "warmup_steps": self.warmup_steps, "warmup_s": self.warmup_s}


def paced_steps_ms(torch, step_at, budget_s, fixed_steps=0, warmup=3, max_steps=1000):
    """step_at(i) runs step i (its batch chosen by i); see the module's comment."""
    t0 = time.perf_counter()
    last = None
    for i in range(warmup):
        last = step_at(i)
    torch.cuda.synchronize()
    warm_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    for i in range(3):
        last = step_at(i)
    torch.cuda.synchronize()
    pace = (time.perf_counter() - t1) / 3
    steps = fixed_steps or int(max(10, min(max_steps, budget_s / max(pace, 1e-6))))
    pairs = [_pair(torch) for _ in range(steps)]
    for i, (start, end) in enumerate(pairs):
        start.record()
        last = step_at(i)
        end.record()
    torch.cuda.synchronize()
    return Paced(sorted(s.elapsed_time(e) for s, e in pairs), warmup + 3, warm_s, last)
