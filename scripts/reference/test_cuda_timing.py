"""cuda_timing.py against a stand-in for torch.cuda whose device clock advances by what each call
costs, and whose events refuse to report a time before a synchronize has followed them (as CUDA
reports an event not yet complete)."""
import types
import unittest

import cuda_timing as ct


class FakeCuda:
    def __init__(self):
        self.clock_ms = 0.0
        self.syncs = 0
        self.synced_up_to = -1.0
        cuda = self

        class Event:
            def __init__(self, enable_timing=False):
                assert enable_timing
                self.at = None

            def record(self):
                self.at = cuda.clock_ms

            def elapsed_time(self, end):
                if self.at is None or end.at is None or end.at > cuda.synced_up_to:
                    raise RuntimeError("event not complete")
                return end.at - self.at

        self.Event = Event

    def synchronize(self):
        self.syncs += 1
        self.synced_up_to = self.clock_ms

    def run(self, ms):
        self.clock_ms += ms


def fake_torch():
    return types.SimpleNamespace(cuda=FakeCuda())


class FakeTime:
    """time.perf_counter for paced_steps_ms, following the fake device's clock."""

    def __init__(self, cuda):
        self.cuda = cuda

    def perf_counter(self):
        return self.cuda.clock_ms / 1e3


class EachCall(unittest.TestCase):
    def test_times_only_the_timed_calls_sorted_with_a_synchronize_after_each(self):
        torch = fake_torch()
        costs = iter([50.0, 50.0, 3.0, 1.0, 2.0])  # two warm-ups, then three timed calls
        ms = ct.each_call_ms(torch, lambda: torch.cuda.run(next(costs)), runs=3, warmup=2)
        self.assertEqual(ms, [1.0, 2.0, 3.0])
        self.assertEqual(torch.cuda.syncs, 4)
        self.assertEqual(ct.median(ms), 2.0)

    def test_median_of_an_even_count_is_the_mean_of_the_middle_two(self):
        self.assertEqual(ct.median([1.0, 2.0, 4.0, 9.0]), 3.0)


class PacedSteps(unittest.TestCase):
    def setUp(self):
        self.torch = fake_torch()
        self.saved_time = ct.time
        ct.time = FakeTime(self.torch.cuda)

    def tearDown(self):
        ct.time = self.saved_time

    def step(self, cost_ms):
        def step_at(i):
            self.torch.cuda.run(cost_ms)
            return i
        return step_at

    def test_fixed_steps_are_issued_back_to_back_with_one_synchronize(self):
        paced = ct.paced_steps_ms(self.torch, self.step(2.0), budget_s=10, fixed_steps=5, warmup=4)
        self.assertEqual(paced.ms, [2.0] * 5)
        self.assertEqual(self.torch.cuda.syncs, 3)  # after the warm-up, the pace, the steps
        self.assertEqual(paced.last, 4)
        self.assertEqual(paced.summary(), {"median_ms": 2.0, "min_ms": 2.0, "max_ms": 2.0,
                                           "steps": 5, "warmup_steps": 7, "warmup_s": 0.008})

    def test_the_budget_over_the_pace_sets_the_count_within_its_bounds(self):
        self.assertEqual(ct.paced_steps_ms(self.torch, self.step(2.0), budget_s=0.1).steps, 50)
        self.assertEqual(ct.paced_steps_ms(self.torch, self.step(2.0), budget_s=1e3,
                                           max_steps=200).steps, 200)
        self.assertEqual(ct.paced_steps_ms(self.torch, self.step(2.0), budget_s=1e-3).steps, 10)


if __name__ == "__main__":
    unittest.main()
