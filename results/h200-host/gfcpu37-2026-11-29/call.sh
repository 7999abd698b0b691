#!/usr/bin/env bash
# gfcpu37's call (issue 27 item 6), run from the repository root on the device with the bundle
# carried in build-gfcpu37/: `bash build-gfcpu37/call.sh`.
# 1. scripts/cpu-server.sh: Geneformer small's ladder on main's binary (old) and this branch's
#    (new, with the fp32 GEMM ceiling), paired-noise sampling, 8 s each; the new binary's per-op
#    table (STAGEBENCH_CPU_OP_TIMES=1) of the four stages that run fp32 or bf16; Enformer small's
#    whole CPU ladder under three placements, 10 s each, paired noise (the validity question).
# 2. stagebench peer for Geneformer on the CPU beside the new ladder: first the menu with a short
#    deadline (fp32-eager and bf16-sdpa; the compiles cut), then compile-bf16-sdpa alone with an
#    85 s budget, merged into the same block (peer --variants).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
start=$SECONDS
SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  OLD_MODEL=geneformer OLD_STAGES="eager onnx-graph engine-fp32 engine-fp16 engine-int8" \
  OLD_SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  OLD_MAX_TIME=8 OLD_LIMIT=40 \
  MODELS=geneformer MAX_TIME_geneformer=8 LADDER_SETUP_S=35 PEER=0 \
  OPS=1 OPS_MODEL=geneformer OPS_STAGES="eager onnx-graph engine-fp32 engine-fp16" OPS_TIME=4 \
  NOISE=1 NOISE_MODEL=enformer NOISE_TIME=10 \
  NOISE_STAGES="original fused-attention fused-gelu fused-layernorm graph-compile bf16 int8-weights" \
  NOISE_PLACEMENTS="bound; threads15 OMP_NUM_THREADS=15; threads15active OMP_NUM_THREADS=15 OMP_WAIT_POLICY=ACTIVE" \
  BUNDLE="$here/cpu-server.tar.xz" bash scripts/cpu-server.sh run "$out"
o=$out/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
peer=(peer geneformer --size small --device cpu --python /tmp/cpu-server-bundle/python-bound
  --scripts "$b/reference" --runs 20 -o "$o/geneformer-small-new.json")
echo "[$((SECONDS - start)) s] peer 1" >>"$o/session.txt"
env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 10 40 \
  "${new[@]}" "${peer[@]}" --variant-budget 20 --deadline 25 >"$o/geneformer-peer.log" 2>&1
echo "[$((SECONDS - start)) s] peer 1: exit $?; peer 2" >>"$o/session.txt"
env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 10 100 \
  "${new[@]}" "${peer[@]}" --variants compile-bf16-sdpa --variant-budget 85 --deadline 88 \
  >"$o/geneformer-peer2.log" 2>&1
echo "[$((SECONDS - start)) s] peer 2: exit $?" >>"$o/session.txt"
"${new[@]}" report "$o/geneformer-small-new.json" >"$o/geneformer-report.txt" 2>&1
gzip -f "$o"/*.log
tar -czf "$out/cpu-server.tar.gz" -C "$out" cpu-server
rm -rf "$o"
echo "[$((SECONDS - start)) s] done"
