#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then the Enformer and Geneformer inference
# ladders and the DeepFM training ladder at `small` on the CPU and on the default OpenCL device
# (PoCL when there is no GPU), and the DynUNet training ladder (small on the CPU, tiny on
# OpenCL). Prints the ladder tables and writes results/latest.json (Enformer),
# results/latest-geneformer.json, results/latest-deepfm.json and results/latest-dynunet*.json.
# Extra arguments go to every `stagebench run`. A ladder with a failed stage (exit 1) does not stop
# the others; the job ends with one summary line per run (`report --format summary`) and exits
# with the worst status.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
worst=0
ladder() {
  local rc=0
  ./build/harness/stagebench run "$@" || rc=$?
  [ "$rc" -eq 1 ] || [ "$rc" -eq 0 ] || exit "$rc"  # bad input or a stop: nothing more to run
  [ "$rc" -gt "$worst" ] && worst=$rc
  return 0
}
# A 2-core VM cannot reach the 1% default noise target in minutes (CV ~10%): 5% is recorded.
# The measuring budgets (--max-time, a ladder's on each backend) add up to 320 s, so that the
# whole job ends within 10 minutes of its build on 2 cores (docs/testing.md); a stage that has
# not reached 5% by then is marked invalid by noise, not hidden.
ladder enformer --size small --backend all --noise 0.05 --max-time 60 \
  -o results/latest.json "$@"
ladder geneformer --size small --backend all --noise 0.05 --max-time 40 \
  -o results/latest-geneformer.json "$@"
ladder deepfm --size small --backend all --noise 0.05 --max-time 30 \
  -o results/latest-deepfm.json "$@"
# DynUNet: small on the CPU; on OpenCL tiny, because a PoCL training step at small takes ~6 s
# (results/cpu-2core/dynunet-2026-11-24/dynunet-small-pocl.txt) and the ladder would need ten
# minutes.
ladder dynunet --size small --backend cpu --noise 0.05 --max-time 30 \
  -o results/latest-dynunet.json "$@"
ladder dynunet --size tiny --backend opencl --noise 0.05 --max-time 20 \
  -o results/latest-dynunet-opencl.json "$@"
echo
echo "== Summary (stagebench report --format summary; the tables above, and docs/method.md for the verdicts)"
./build/harness/stagebench report --format summary results/latest.json \
  results/latest-geneformer.json results/latest-deepfm.json results/latest-dynunet.json \
  results/latest-dynunet-opencl.json
exit "$worst"
