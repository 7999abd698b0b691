#!/usr/bin/env bash
# gfcpu37's second call: stagebench peer for Geneformer small on the CPU beside this branch's
# ladder (call.sh's peer steps found no cuda_timing.py in the bundle; cpu-server.sh now bundles
# every reference module). `bash build-gfcpu37/call2.sh` from the repository root on the device.
# 1. cpu-server.sh: the new binary's Geneformer ladder (fp32 GEMM ceiling first), 6 s, paired.
# 2. peer: the menu with a 12 s deadline (fp32-eager and bf16-sdpa; the compiles cut), then
#    compile-bf16-sdpa alone with an 85 s budget, merged into the same block (peer --variants).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
start=$SECONDS
SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  MODELS=geneformer MAX_TIME_geneformer=6 LADDER_SETUP_S=35 PEER=0 NOISE=0 \
  BUNDLE="$here/cpu-server.tar.xz" bash scripts/cpu-server.sh run "$out"
o=$out/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
peer=(peer geneformer --size small --device cpu --python /tmp/cpu-server-bundle/python-bound
  --scripts "$b/reference" --runs 20 -o "$o/geneformer-small-new.json")
echo "[$((SECONDS - start)) s] peer 1" >>"$o/session.txt"
env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 5 25 \
  "${new[@]}" "${peer[@]}" --variant-budget 10 --deadline 12 >"$o/geneformer-peer.log" 2>&1
echo "[$((SECONDS - start)) s] peer 1: exit $?; peer 2" >>"$o/session.txt"
env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 5 95 \
  "${new[@]}" "${peer[@]}" --variants compile-bf16-sdpa --variant-budget 85 --deadline 86 \
  >"$o/geneformer-peer2.log" 2>&1
echo "[$((SECONDS - start)) s] peer 2: exit $?" >>"$o/session.txt"
"${new[@]}" report "$o/geneformer-small-new.json" >"$o/geneformer-report.txt" 2>&1
gzip -f "$o"/*.log
tar -czf "$out/cpu-server.tar.gz" -C "$out" cpu-server
rm -rf "$o"
echo "[$((SECONDS - start)) s] done"
