#!/usr/bin/env bash
# lead40's final call (issue 27) on the H200 machine, the merged main of 2026-11-30's session:
# (1) GPU: the 8192^3 fp16 stage on mma.sync alone (STAGEBENCH_WGMMA=off) with the op layer's
#     final candidate list (mma40's bands-of-8 packed form among the three spread forms) and with
#     that form alone; the default (wgmma) stage; cuBLAS f16 in the same call; NVIDIA's whole
#     op table with wgmma off (the sm_90 gate's bulk-copy program) and on;
# (2) the 16-core host, 15 threads spinning, paired criterion: DynUNet small's ladder with
#     dynbf40's bf16 convolutions (bf16-mixed and its successors), the held-copy knob off for
#     baseline and bf16-mixed in the same call, PyTorch's menu, then its compile-fp32.
# From the checkout's root with build-lead40/ carried (.gpu from bundle-with-tests.sh, the
# cpu-server bundle of build-spr): BUDGET=560 bash build-lead40/call.sh "$OUT"
set -u
OUT=${1:?out}
L=build-lead40
N=$L/.gpu
O=$OUT/lead40
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-560}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 8)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/lead40.tar.gz" -C "$OUT" lead40 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 8 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"; pack
}
ops() {  # name, knobs, cap
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$3")" $N/ops_test --gtest_filter='*opencl*:OpsOpenCL.*:PipeVariants.*:WgmmaVariants.*' \
      > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
# the first process builds the tensor-core programs (cold machine: about 60 s)
gemm mma-all "STAGEBENCH_WGMMA=off" 110
gemm mma-r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_r8_bulk2_pk_db" 20
gemm wgmma "SB_DEFAULTS=1" 70
timeout -s INT "$(cap 25)" python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"; pack
ops mma "STAGEBENCH_WGMMA=off" 60
ops wgmma "SB_DEFAULTS=1" 60
for f in "$O"/gemm-*.json; do
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-110 | head -3
done | tee "$O/summary.txt"
gzip -f "$O"/*.json "$O"/ops-*.txt 2>/dev/null; pack
# (2) the host
export THREADS=15 OMP_WAIT_POLICY=ACTIVE
SAMP="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise"
log "cpu-server start"
MODELS=dynunet MAX_TIME_dynunet=45 LADDER_SETUP_S=30 SAMPLING="$SAMP" \
  KNOB="STAGEBENCH_CPU_CONV_HELD_COPY=off" KNOB_STAGES="baseline bf16-mixed" \
  PEER_LAST=1 PEER_MODELS=dynunet PEER_DEADLINE_dynunet=35 PEER_VARIANT_BUDGET=15 \
  OPS=0 NOISE=0 \
  BUNDLE=$L/cpu-server.tar.xz timeout -s INT "$(cap 200)" bash $L/cpu-server.sh run "$O"
log "cpu-server rc=$?"
c=$O/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
limit=$(cap 105)
if ((limit >= 70)); then
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS=$THREADS LD_LIBRARY_PATH="$b/lib" \
    timeout -s INT -k 10 "$limit" "$b/new/stagebench" peer dynunet --size small --device cpu \
    --python /tmp/cpu-server-bundle/python-bound --scripts "$b/reference" --runs 20 \
    --variants compile-fp32 --variant-budget 80 --deadline $((limit - 10)) \
    -o "$c/dynunet-small-new.json" > "$c/dynunet-peer-compile-fp32.log" 2>&1
  log "peer dynunet compile-fp32 rc=$?"
else log "peer dynunet compile-fp32 skipped: $limit s left"; fi
[ -f "$c/dynunet-small-new.json" ] && LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" report "$c/dynunet-small-new.json" > "$c/dynunet-report-final.md" 2>&1
rm -rf /tmp/cpu-server-bundle; pack
log "done"
