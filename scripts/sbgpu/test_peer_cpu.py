"""scripts/reference/peer_timing.py's CPU compile window (unbound_compile), without torch: a child
interpreter bound to one core as libgomp binds the main thread with OMP_PROC_BIND set. Lives here
because ctest's sbgpu_summaries discovers the tests of this folder."""
import json
import os
import subprocess
import sys
import unittest

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")

# Binds itself to its first allowed core and a thread to the others (libgomp's doing in PyTorch,
# with OMP_PROC_BIND set), then reports what a child
# started inside and after the window sees, and its own mask after the window.
PROBE = r"""
import json, os, subprocess, sys, threading
sys.path.insert(0, sys.argv[1])
import peer_timing as pt
allowed = sorted(os.sched_getaffinity(0))
# an OpenMP worker thread, bound to the other cores
ready, stop = threading.Event(), threading.Event()
def worker():
    os.sched_setaffinity(0, set(allowed[1:]))
    ready.set()
    stop.wait()
threading.Thread(target=worker, daemon=True).start()
ready.wait()
os.sched_setaffinity(0, {allowed[0]})
child = [sys.executable, "-c",
         "import json, os; print(json.dumps([sorted(os.sched_getaffinity(0)), "
         "os.environ.get('OMP_PROC_BIND'), os.environ.get('OMP_PLACES')]))"]
def seen():
    return json.loads(subprocess.run(child, capture_output=True, text=True, check=True).stdout)
with pt.unbound_compile(sys.argv[2]):
    inside = seen()
    main_inside = sorted(os.sched_getaffinity(0))
print(json.dumps({"allowed": allowed, "inside": inside, "main_inside": main_inside,
                  "after": seen(), "main_after": sorted(os.sched_getaffinity(0))}))
"""


def probe(device, **env):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    full_env.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE, REFERENCE, device], capture_output=True,
                         text=True, env=full_env, check=True)
    return json.loads(out.stdout)


@unittest.skipUnless(hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) >= 2,
                     "needs CPU affinity and two cores")
class UnboundCompile(unittest.TestCase):
    def test_children_of_a_bound_cpu_peer_get_every_core_and_no_binding(self):
        r = probe("cpu", OMP_PROC_BIND="close", OMP_PLACES="cores")
        self.assertEqual(r["inside"], [r["allowed"], None, None])
        self.assertEqual(r["main_inside"], r["allowed"])
        # the timed calls run bound again, and so would what they start
        self.assertEqual(r["main_after"], r["allowed"][:1])
        self.assertEqual(r["after"], [r["allowed"][:1], "close", "cores"])

    def test_unbound_or_cuda_runs_are_left_alone(self):
        for device, env in (("cpu", {}), ("cuda", {"OMP_PROC_BIND": "close"})):
            r = probe(device, **env)
            self.assertEqual(r["inside"][0], r["allowed"][:1], (device, env))
            self.assertEqual(r["inside"][1], env.get("OMP_PROC_BIND"), (device, env))


if __name__ == "__main__":
    unittest.main()
