#!/usr/bin/env bash
# mma37 call 1 (issue 27: the f16 GEMM on mma.sync alone): the wgmma probe's mma phase at 8192^3
# (the pipeline's forms, old and new, and the timing-only forms that leave a part of the K loop
# out, checked and timed in turns), ptxas -v and the SASS of each form's PTX as NVIDIA's OpenCL
# compiler wrote it, a brief try of Nsight Compute on the OpenCL kernel, and cuBLAS f16 in the same
# call. From the checkout's root with build-mma37/ carried (scripts/wgmma-build.sh's .wgmma there):
#   BUDGET=170 bash build-mma37/call1.sh "$OUT"
# Call 2 (the forms with their copies set up once or spread): PTXAS=0 NCU=0 (the driver's build
# logs give each form's registers and spills).
set -u
OUT=${1:?out}
B=build-mma37/.wgmma
O=$OUT/mma37
mkdir -p "$O/forms"
t0=$(date +%s)
BUDGET=${BUDGET:-170}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 8)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/mma37.tar.gz" -C "$OUT" mma37 2>/dev/null; }
. $B/nvidia-opencl-env.sh
nvidia_opencl_env "$B/lib"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
P=($B/wgmma_probe --kernels $B/kernels --mma-kernels $B/mma-kernels --out "$O/forms")
timeout -s INT "$(cap 110)" "${P[@]}" --phase mma --sizes 8192 --rounds ${ROUNDS:-8} > "$O/mma.txt" 2>&1
log "probe mma rc=$?"; grep -E "^time|FAIL|ERROR|check 256" "$O/mma.txt" | cut -c1-200; pack
timeout -s INT "$(cap 20)" python3 $B/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"; pack
if [ "${PTXAS:-1}" = 1 ]; then
# registers, spills and SASS of each form (the PTX NVIDIA's compiler made, through the CUDA ptxas)
for f in "$O"/forms/*.ptx; do
  n=$(basename "$f" .ptx)
  sed 's/^\.target sm_90, texmode_independent/.target sm_90/' "$f" > "$O/forms/$n.cuda.ptx"
  ptxas -arch=sm_90 -v "$O/forms/$n.cuda.ptx" -o "$O/forms/$n.cubin" > "$O/forms/$n-ptxas.txt" 2>&1
  r=$(grep -A3 "entry function '$n'" "$O/forms/$n-ptxas.txt" | grep -E "registers|spill" | tr '\n' ' ')
  cuobjdump -sass "$O/forms/$n.cubin" > "$O/forms/$n.sass" 2>&1
  log "ptxas $n: $r | SASS: $(grep -c HMMA "$O/forms/$n.sass") HMMA $(grep -c LDSM "$O/forms/$n.sass") LDSM $(grep -c LDGSTS "$O/forms/$n.sass") LDGSTS $(grep -cE 'BAR\.SYNC|BAR\.SY|BAR ' "$O/forms/$n.sass") BAR $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$O/forms/$n.sass") instr"
  rm -f "$O/forms/$n.cubin" "$O/forms/$n.cuda.ptx"
done
fi
for f in "$O"/forms/*-build.txt; do  # the driver's own ptxas -v (-cl-nv-verbose), per form
  n=$(basename "$f" -build.txt)
  echo "$n: $(grep -A3 "Function properties for $n\$" "$f" | grep -E 'registers|spill' | tr '\n' ' ')"
done > "$O/build-logs-regs.txt"
cat "$O/build-logs-regs.txt"
pack
[ "${NCU:-1}" = 1 ] || { pack; log "done"; exit 0; }
# Nsight Compute on the OpenCL kernel, briefly (one launch of the default form, 4096^3)
command -v ncu > "$O/ncu.txt" 2>&1
MMA_FORMS=gemm_f16_pipe_256_db timeout -s INT "$(cap 45)" ncu --clock-control none -k regex:gemm_f16 -c 1 \
  --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy \
  "${P[@]}" --phase mma --sizes 4096 --rounds 1 >> "$O/ncu.txt" 2>&1
log "ncu rc=$?"; tail -40 "$O/ncu.txt"
gzip -f "$O"/forms/*.sass "$O"/forms/*.ptx 2>/dev/null
pack
log "done"
