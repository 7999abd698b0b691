#!/usr/bin/env bash
# lead39's final host call (issue 27, item 6): the merged main of 2026-11-29's sixth session on
# the H200 machine's 16-core host, every process at 15 threads with libgomp spinning
# (OMP_WAIT_POLICY=ACTIVE: the placement that made Enformer's and DynUNet's fp32 stages valid in
# cpuf38 and dyn39), judged by the paired criterion. (1) the merged main's ladders: DeepFM,
# Enformer, DynUNet; Geneformer's eager and onnx-graph under gfonnx39's three
# STAGEBENCH_CPU_GRID_PACK modes, alternating processes, two rounds; (2) PyTorch's menu for
# DeepFM, Enformer and DynUNet (fp32-eager within a short deadline: what
# `peer --variants` adds to); (3) the compiled variants a CPU compile needs a long budget for,
# never timed on this host beside our ladder: DeepFM's and Enformer's compile-bf16, then
# DynUNet's compile-fp32. From the checkout's root with build-lead39/ carried:
#   BUDGET=590 bash build-lead39/call.sh "$OUT"
set -u
OUT=${1:?out}
L=build-lead39
O=$OUT/lead39
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-590}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 8)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/lead39.tar.gz" -C "$OUT" lead39 2>/dev/null; }
export THREADS=15 OMP_WAIT_POLICY=ACTIVE
log "cpu-server start"
MODELS="deepfm enformer dynunet" \
  MAX_TIME_deepfm=12 MAX_TIME_enformer=33 MAX_TIME_dynunet=30 \
  AB_MODEL=geneformer AB_STAGES="eager onnx-graph" AB_ROUNDS=2 AB_TIME=3 \
  AB_VARIANTS="b STAGEBENCH_CPU_GRID_PACK=b; on STAGEBENCH_CPU_GRID_PACK=on; off STAGEBENCH_CPU_GRID_PACK=off" \
  SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  PEER_LAST=1 PEER_MODELS="deepfm enformer dynunet" \
  PEER_DEADLINE_deepfm=12 PEER_DEADLINE_enformer=12 PEER_DEADLINE_dynunet=12 PEER_VARIANT_BUDGET=15 \
  OPS=0 NOISE=0 \
  BUNDLE=$L/cpu-server.tar.xz timeout -s INT "$(cap 330)" bash $L/cpu-server.sh run "$O"
log "cpu-server rc=$?"
c=$O/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
compiled() {  # model, variant, budget
  local limit; limit=$(cap $(($3 + 25)))
  ((limit < 30)) && { log "peer $1 $2 skipped: $limit s left"; return; }
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS=$THREADS LD_LIBRARY_PATH="$b/lib" \
    timeout -s INT -k 10 "$limit" "$b/new/stagebench" peer "$1" --size small --device cpu \
    --python /tmp/cpu-server-bundle/python-bound --scripts "$b/reference" --runs 20 \
    --variants "$2" --variant-budget "$3" --deadline $((limit > 15 ? limit - 10 : 5)) \
    -o "$c/$1-small-new.json" > "$c/$1-peer-$2.log" 2>&1
  log "peer $1 $2 rc=$?"; pack
}
compiled deepfm compile-bf16 85
compiled enformer compile-bf16 100
compiled dynunet compile-fp32 70
for m in deepfm enformer dynunet; do
  [ -f "$c/$m-small-new.json" ] && LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" report "$c/$m-small-new.json" > "$c/$m-report-final.md" 2>&1
done
rm -rf /tmp/cpu-server-bundle; pack
log "done"
