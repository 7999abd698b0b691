"""sbgpu against committed session files: each summary must reproduce what the device scripts'
inline snippets printed into results/ (python3 -m unittest discover -s scripts/sbgpu -t scripts)."""
import contextlib
import io
import json
import os
import unittest

from sbgpu import __main__ as cli
from sbgpu import checks, runs, timeline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def result(*parts):
    return os.path.join(ROOT, "results", *parts)


def read(path):
    with open(path) as f:
        return f.read()


def run_cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = cli.main(list(argv))
    return rc, out.getvalue()


class Timeline(unittest.TestCase):
    check = result("h200", "dyn27-2026-11-28", "check")

    def test_gzipped_traces_sum_to_the_committed_kernel_tables(self):
        for name in ("new", "old", "dw-tf32"):
            rc, out = run_cli("kernels", os.path.join(self.check, f"timeline-{name}.trace.json.gz"), "30")
            self.assertEqual(rc, 0)
            self.assertEqual(out, read(os.path.join(self.check, f"timeline-{name}-kernels.txt")), name)

    def test_only_device_commands_count(self):
        events = [{"cat": "device", "ph": "X", "name": "k", "dur": 1500, "args": {"stage": "a"}},
                  {"cat": "device", "ph": "X", "name": "k", "dur": 500, "args": {"stage": "a"}},
                  {"cat": "host", "ph": "X", "name": "k", "dur": 9000, "args": {"stage": "a"}}]
        self.assertEqual(dict(timeline.sum_by_kernel(events)["a"]), {"k": [2, 2.0]})


class Checks(unittest.TestCase):
    folder = result("cpu-2core", "dynunet-check-2026-11-27")

    def test_dynunet_check_prints_as_the_committed_logs(self):
        for backend in ("cpu", "pocl"):
            c = json.loads(read(os.path.join(self.folder, f"check-tiny-{backend}.json")))
            self.assertEqual(checks.dynunet_check(c, "tiny", backend) + "\n",
                             read(os.path.join(self.folder, f"check-tiny-{backend}.txt")))

    def test_selftest_line(self):
        rc, out = run_cli("dynunet-selftest", os.path.join(self.folder, "selftest.json"))
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^== selftest \(CPU, tiny fixture\): pass True, names match "
                              r"params.cpp True, loss vs float64 rel [0-9.e-]+\n$")

    def test_deepfm_check_line_as_the_h100_log(self):
        # the figures of results/h100/deepfm-2026-11-24/deepfm-reference.txt's tiny line
        c = {"steps": 8, "max_rel_loss_diff": 1.19e-07, "overall_cosine": 1.0,
             "overall_max_abs": 6.96e-05, "pass": True}
        line = checks.deepfm_check(c, "tiny")
        self.assertIn(line, read(result("h100", "deepfm-2026-11-24", "deepfm-reference.txt")))


class Runs(unittest.TestCase):
    def test_ceiling_args_from_the_ceilings_log(self):
        args = runs.ceiling_args(read(result("h200", "ladders-2026-11-27", "ceilings.txt")))
        self.assertEqual(args[:4], ["--ceiling", "fp32=51081", "--ceiling", "tf32=404961"])
        self.assertEqual(len(args), 8)
        self.assertEqual(runs.ceiling_args(""), [])
        with self.assertRaises(ValueError):
            runs.ceiling_args("fp32=fast")

    def test_stage_line_names_the_tuning(self):
        path = result("h200", "kernels-2026-11-26", "clblast-tuning-2026-11-26",
                      "enformer-original-defaults.json")
        line = runs.stage_line(path)
        self.assertIn("median   149.29 ms", line)
        self.assertIn("STAGEBENCH_CLBLAST_TUNING=off", line)

    def test_best_peer_is_the_fastest_correct_variant(self):
        run = runs.load_run(result("h200", "ladders-2026-11-27", "geneformer-full-opencl.json"))
        name, ms = runs.best_peer(run)
        correct = [v["median_ms"] for v in run["reference"]["variants"]
                   if v.get("correct") and v.get("median_ms")]
        self.assertEqual(ms, min(correct))
        self.assertIsNone(runs.best_peer({"reference": {"variants": [{"name": "x", "correct": False,
                                                                      "median_ms": 1.0}]}}))
        self.assertIn(f"PyTorch best {name}", runs.ladder_line(
            result("h200", "ladders-2026-11-27", "geneformer-full-opencl.json")))

    def test_values_of_finds_nested_keys_once(self):
        doc = {"a": [{"k": 1}, {"b": {"k": 2}}, {"k": 1}], "k": 3}
        self.assertEqual(runs.values_of(doc, "k"), [3, 1, 2])


class Pairs(unittest.TestCase):
    def test_wgmma_tables_match_the_committed_summary(self):
        folder = result("h200", "wgmma-ops-2026-11-27")
        rc, out = run_cli("pairs", folder)
        self.assertEqual(rc, 0)
        committed = read(os.path.join(folder, "summary.md")).splitlines()
        self.assertEqual(out.splitlines(), committed[11:68])


class Errors(unittest.TestCase):
    def test_a_missing_file_is_exit_2(self):
        self.assertEqual(run_cli("stage", os.path.join(ROOT, "no-such-file.json"))[0], 2)


if __name__ == "__main__":
    unittest.main()
