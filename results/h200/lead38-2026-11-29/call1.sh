#!/usr/bin/env bash
# lead38's final call (issue 27), one lease: (A) the GPU: mma38's f16 candidates on NVIDIA
# with STAGEBENCH_WGMMA=off (the op-table's linear and batched cases with the candidates timed per
# shape, then the f16 cases with each candidate forced; the 8192^3 fp16 stage; cuBLAS f16);
# (B) the host CPU: DynUNet small's ladder, main's binary before this session's CPU change (old)
# against the merged main's (new), its op table, PyTorch's CPU menu; Geneformer small's ladder at
# the merged defaults (gfamx38's oneDNN attention) beside PyTorch's menu; then the compiled
# variants a CPU compile needs a long budget for: Geneformer's compile-bf16-sdpa and DynUNet's
# compile-fp32 (never timed on this host). From the checkout's root with build-lead38/ carried:
#   BUDGET=560 bash build-lead38/call.sh "$OUT"
set -u
OUT=${1:?out}
L=build-lead38
N=$L/.gpu
O=$OUT/lead38
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-560}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 8)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/lead38.tar.gz" -C "$OUT" lead38 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
ops() {  # name, knobs, gtest filter, cap
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$4")" $N/ops_test --gtest_filter="$3" > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
T='Backends/OpTable.MatchesTheReference/opencl_linear:Backends/OpTable.MatchesTheReference/opencl_gemm_batched'
# (A) first: a cold machine builds the tensor-core programs here (about 60 s), later runs reuse them.
ops mma-timed "STAGEBENCH_WGMMA=off" "$T" 110
for k in gemm_f16_pipe_256_spread_db gemm_f16_pipe_256_spread_wv_r8_db gemm_f16_pipe_256_spread_wl_db; do
  ops "${k#gemm_f16_pipe_256_}" "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$k STAGEBENCH_OP_CASES=f16" \
    'Backends/OpTable.MatchesTheReference/opencl_linear' 25
done
env STAGEBENCH_WGMMA=off timeout -s INT "$(cap 80)" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
  --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-mma.json" \
  --timeline "$O/gemm-mma.trace.json" > "$O/gemm-mma.log" 2>&1
log "gemm fp16 WGMMA=off rc=$?"
PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-mma.trace.json" 8 > "$O/gemm-mma-kernels.txt" 2>&1
rm -f "$O/gemm-mma.trace.json"; pack
timeout -s INT "$(cap 25)" python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; pack
# (B) the host CPU
log "cpu-server start"
OLD_MODEL=dynunet OLD_STAGES="baseline compile fused-optimizer" OLD_MAX_TIME=12 OLD_LIMIT=40 \
  MODELS="dynunet geneformer" MAX_TIME_dynunet=20 MAX_TIME_geneformer=15 \
  PEER_DEADLINE_dynunet=45 PEER_DEADLINE_geneformer=25 PEER_VARIANT_BUDGET=40 \
  OPS=1 OPS_MODEL=dynunet OPS_STAGES=baseline OPS_TIME=6 NOISE=0 \
  BUNDLE=$L/cpu-server.tar.xz timeout -s INT "$(cap 300)" bash $L/cpu-server.sh run "$O"
log "cpu-server rc=$?"
c=$O/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
compiled() {  # model, variant, budget
  local limit; limit=$(cap $(($3 + 20)))
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" LD_LIBRARY_PATH="$b/lib" \
    timeout -s INT -k 10 "$limit" "$b/new/stagebench" peer "$1" --size small --device cpu \
    --python /tmp/cpu-server-bundle/python-bound --scripts "$b/reference" --runs 20 \
    --variants "$2" --variant-budget "$3" --deadline $((limit > 15 ? limit - 10 : 5)) \
    -o "$c/$1-small-new.json" > "$c/$1-peer-$2.log" 2>&1
  log "peer $1 $2 rc=$?"; pack
}
compiled geneformer compile-bf16-sdpa 85
compiled dynunet compile-fp32 120
rm -rf /tmp/cpu-server-bundle; pack
log "done"
