#!/usr/bin/env bash
# One device-machine session for `stagebench tune` (run there from the repository root, .gpu/
# carried): stage 0 of DynUNet full and Enformer full with CLBlast's own parameters, then CLBlast
# tuned on the device (its tuners, kept per kernel only if a timed GEMM got faster), then the same
# stage 0 again with the tuning applied, all in one session. Everything lands in $1 (default
# $OUT), the tuning cache included; about 8 minutes with FRACTION=0.01.
set -uo pipefail
out="${1:-${OUT:?}}"
sb=".gpu/gpu-run.sh"
export STAGEBENCH_CACHE_DIR="$out/cache"
log="$out/tune.txt"
stage0() {  # $1: label
  bash "$sb" run dynunet --size full --backend opencl --stages baseline --max-time 25 \
    --noise 0.02 -q -o "$out/dynunet-full-baseline-$1.json" > /dev/null 2>>"$log"
  bash "$sb" run enformer --size full --backend opencl --stages original --max-time 20 \
    --noise 0.02 -q -o "$out/enformer-full-original-$1.json" > /dev/null 2>>"$log"
}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  STAGEBENCH_CLBLAST_TUNING=off stage0 defaults
  echo "== tune"
  time bash "$sb" tune --fraction "${FRACTION:-0.01}" --size 2048 2>&1 | grep -vE "^ *\|" | tail -20
  echo "== stage 0 with the tuning"
  stage0 tuned
  for f in "$out"/*-defaults.json "$out"/*-tuned.json; do
    python3 -c "
import json, sys
r = json.load(open('$f'))['runs'][0]; s = r['stages'][0]
print('%-40s %-10s median %8.2f ms  GFLOP/s %7.0f  %s' % ('$f'.split('/')[-1], s['status'],
      s['time']['median_ms'], s['throughput'].get('gflops') or 0, r['params'].get('library_tuning')))"
  done
} 2>&1 | tee -a "$log"
