#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with the folder scripts/wgmma-build.sh made
# (this script's own folder) carried there: the wgmma probe's phases (tile, then the GEMMs beside
# the project's mma.sync pipeline), cuBLAS through PyTorch on the same GPU, and ptxas -v on each
# patched PTX (registers, spills, and whether ptxas serialized the wgmma). NVIDIA's OpenCL is
# registered with the ICD loader for this process only, as scripts/gpu-run.sh does. Logs go to
# $1 (default $OUT): log.txt as it runs, everything else in wgmma-out.tar.gz (the device tool
# brings back at most 8 files).
set -uo pipefail
b="$(cd "$(dirname "$0")" && pwd)"
out="${1:-${OUT:?}}"
work="$(mktemp -d)"
log() { echo "$(date +%T) $*" | tee -a "$out/log.txt"; }
pack() { tar czf "$out/wgmma-out.tar.gz" -C "$work" . 2>/dev/null; }
. "$(dirname "$0")/nvidia-opencl-env.sh"  # registers NVIDIA's OpenCL, the bundle's libraries first
nvidia_opencl_env "$b/lib"
cp "$b/BUILD_INFO" "$work/"
gpu_facts "$work/gpu.txt"
log "$(tr '\n' ' ' < "$work/gpu.txt")"
probe=("$b/wgmma_probe" --kernels "$b/kernels" --mma-kernels "$b/mma-kernels" --out "$work")

timeout 60 "${probe[@]}" --phase tile > "$work/tile.txt" 2>&1
log "tile rc=$?"; cat "$work/tile.txt" | tee -a "$out/log.txt"; pack
timeout 150 "${probe[@]}" --phase gemm ${SIZES:+--sizes "$SIZES"} > "$work/gemm.txt" 2>&1
log "gemm rc=$?"; cat "$work/gemm.txt" | tee -a "$out/log.txt"; pack
if ! grep -F "mma_sync_256 (" "$work/gemm.txt" | grep -q "^time"; then  # rerun it alone
  timeout 60 "${probe[@]}" --phase mma ${SIZES:+--sizes "$SIZES"} > "$work/mma.txt" 2>&1
  log "mma rc=$?"; cat "$work/mma.txt" | tee -a "$out/log.txt"; pack
fi
timeout 90 python3 "$b/cublas_f16.py" "$work/cublas.json" > "$work/cublas.txt" 2>&1
log "cublas rc=$?"; cat "$work/cublas.txt" | tee -a "$out/log.txt"; pack
ptxas_bin="$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n1)"
cuobjdump_bin="$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n1)"
for f in "$work"/*.ptx; do
  case "$f" in *.orig.ptx) continue ;; esac
  [ -n "$ptxas_bin" ] || break
  n="$(basename "$f" .ptx)"
  "$ptxas_bin" -arch=sm_90a -v "$f" -o "$work/$n.cubin" > "$work/$n-ptxas.txt" 2>&1
  log "ptxas $n rc=$? $(grep -E 'registers|spill|C75' "$work/$n-ptxas.txt" | tr '\n' ' ')"
  if [ -n "$cuobjdump_bin" ] && [ -f "$work/$n.cubin" ]; then
    "$cuobjdump_bin" -sass "$work/$n.cubin" > "$work/$n.sass" 2>&1
    log "sass $n: $(grep -c HGMMA "$work/$n.sass") HGMMA, $(grep -c 'HMMA' "$work/$n.sass") HMMA, $(grep -c LDGSTS "$work/$n.sass") LDGSTS"
  fi
done
pack
log "done in ${SECONDS}s"
