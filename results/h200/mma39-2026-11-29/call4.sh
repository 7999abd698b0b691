#!/usr/bin/env bash
# mma39 call 4: the probe's packed bulk forms (operands packed once outside the timing), beside
# mma38's stage winner and the timing-only form without copies, 8192^3, median of 8 rounds.
# From the checkout's root with build-mma39/.wgmma (scripts/wgmma-build.sh) carried:
#   BUDGET=40 bash build-mma39/call4.sh "$OUT"
set -u
OUT=${1:?out}
W=build-mma39/.wgmma
O=$OUT/mma39
mkdir -p "$O/forms"
t0=$(date +%s)
BUDGET=${BUDGET:-40}
DEFAULT=gemm_f16_pipe_256_spread_wv_r8_db,gemm_f16_pipe_256_bulk_pk_db,gemm_f16_pipe_256_bulk2_pk_db
DEFAULT+=,gemm_f16_pipe_256_bulk2_pk_r8_db,gemm_f16_pipe_256_bulk2_pk_at0_db
DEFAULT+=,gemm_f16_pipe_256_bulk2_pk_at2_db,probe_nocopy
FORMS=${FORMS:-$DEFAULT}
cat $W/BUILD_INFO > "$O/build-info.txt"
(. $W/nvidia-opencl-env.sh && nvidia_opencl_env "$W/lib" &&
  MMA_FORMS=$FORMS timeout -s INT $((BUDGET - 4)) $W/wgmma_probe --kernels $W/kernels \
    --mma-kernels $W/mma-kernels --out "$O/forms" --phase mma --sizes 8192 --rounds 8 \
    > "$O/mma.txt" 2>&1)
echo "probe mma rc=$? after $(($(date +%s) - t0)) s" | tee "$O/call.log"
grep -E "^time|^pack|FAIL|ERROR|BUILD" "$O/mma.txt" | cut -c1-200
for f in "$O"/forms/*-build.txt; do
  n=$(basename "$f" -build.txt)
  echo "$n: $(grep -A3 "Function properties for $n\$" "$f" | grep -E 'registers|spill' | tr '\n' ' ')"
done > "$O/build-logs-regs.txt"
rm -f "$O"/forms/*.ptx
tar czf "$OUT/mma39.tar.gz" -C "$OUT" mma39
