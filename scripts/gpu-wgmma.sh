#!/usr/bin/env bash
# Issue 27 part 3 on the device machine: the f16 GEMMs with STAGEBENCH_WGMMA=off (the mma.sync
# pipeline) against the default (wgmma on sm_90 where the start-up check passed), in one call on
# one GPU. Run from the repository root with .gpu/ carried (scripts/gpu-bundle.sh):
#   cuBLAS's ceilings (scripts/reference/gemm_ceilings.py), then
#   the gemm benchmark's fp16 stage at 8192^3, 4096^3 and two of the models' shapes, off then on;
#   the Geneformer and Enformer full ladders in the order off, on, on, off (each model's pair
#   twice, in both orders, so that drift during the call favours neither);
#   PyTorch's peer beside the first "on" ladder of each model, while time allows.
# Everything lands in OUT/wgmma and is tarred into OUT/wgmma.tar.gz.
#   LIMIT=s   everything, the tar included, ends within this (default 560)
set -uo pipefail
out="${1:-${OUT:?}}"
o="$out/wgmma"
mkdir -p "$o"
sb="$PWD/${BUNDLE:-.gpu}/gpu-run.sh"  # BUNDLE: the bundle's folder (default .gpu)
limit="${LIMIT:-560}"
left() { echo $((limit - SECONDS)); }
log() { echo "$(date +%T) [${SECONDS}s] $*" | tee -a "$o/session.txt"; }
export PYTHONUNBUFFERED=1

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' >> "$o/gpu.txt" 2>&1
ceilings=$(timeout 90 python3 scripts/reference/gemm_ceilings.py 2> "$o/ceilings.txt" | tail -n1)
log "cuBLAS ceilings (GFLOP/s): $ceilings"
args=()
IFS=',' read -ra pairs <<< "$ceilings"
for p in "${pairs[@]}"; do [ -n "$p" ] && args+=(--ceiling "$p"); done

# run NAME MODE SECONDS stagebench-run-args...: one process with STAGEBENCH_WGMMA=MODE.
run() {
  local name=$1 mode=$2 secs=$3
  shift 3
  if [ "$(left)" -lt $((secs + 20)) ]; then
    log "$name-$mode skipped: $(left)s left"
    return
  fi
  STAGEBENCH_WGMMA=$mode timeout -s INT "$secs" bash "$sb" run "$@" --backend opencl -q \
    "${args[@]}" -o "$o/$name-$mode.json" > "$o/$name-$mode.txt" 2>&1
  log "$name-$mode rc=$? $(grep -o '"gemm_paths": "[^"]*"' "$o/$name-$mode.json" 2>/dev/null | head -c 300)"
}

for size in 8192x8192x8192 4096x4096x4096 65536x768x256 1536x1536x7680; do
  run "gemm-$size" off 60 gemm --size "$size" --stages fp16 --max-time 5
  run "gemm-$size" on 60 gemm --size "$size" --stages fp16 --max-time 5
done
run geneformer-full off 60 geneformer --size full --max-time 12
run geneformer-full on 60 geneformer --size full --max-time 12
run enformer-full off 90 enformer --size full --max-time 15
run enformer-full on 90 enformer --size full --max-time 15
run geneformer-full-2 on 60 geneformer --size full --max-time 12
run geneformer-full-2 off 60 geneformer --size full --max-time 12
run enformer-full-2 on 90 enformer --size full --max-time 15
run enformer-full-2 off 90 enformer --size full --max-time 15
for model in geneformer enformer; do
  budget=$(($(left) - 40))
  if [ "$budget" -ge 60 ] && [ -s "$o/$model-full-on.json" ]; then
    timeout $((budget + 20)) bash "$sb" peer "$model" --size full -o "$o/$model-full-on.json" \
      --deadline "$budget" > "$o/$model-full-peer.txt" 2>&1
    log "$model peer rc=$? (deadline ${budget}s)"
  else
    log "$model peer not run: $(left)s left"
  fi
done
log "done"
tar czf "$out/wgmma.tar.gz" -C "$out" wgmma
