#!/usr/bin/env bash
# dyn39's second host call: call 1's peer step failed (`peer --variants` only adds to an
# earlier PyTorch block), so: (1) the new binary's ladder again at the same placement (15 threads
# spinning) judged by the paired criterion (`--quality paired-noise`, docs/method.md), with the
# ceiling it measures; (2) PyTorch's menu for a short deadline (its eager variants: the block
# that --variants adds to), then compile-fp32 with a 70 s budget, into that ladder's result.
#   bash build-dyn39/call2.sh "$OUT"
set -u
OUT=${1:?out}
L=build-dyn39
O=$OUT/dyn39b
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-160}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 5)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dyn39b.tar.gz" -C "$OUT" dyn39b 2>/dev/null; }
root=/tmp/dyn39-bundle
rm -rf "$root" && mkdir -p "$root" && tar -xJf $L/cpu-server.tar.xz -C "$root" || exit 1
b=$(dirname "$(find "$root" -name cpu_server_ops.py | head -1)")
export THREADS=${THREADS:-15} OMP_WAIT_POLICY=ACTIVE
export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores
{ date -u; echo "OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_WAIT_POLICY=$OMP_WAIT_POLICY OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"; } > "$O/session.txt" 2>&1
printf '#!/bin/sh\nexport OMP_PROC_BIND=%s OMP_PLACES=%s TORCHINDUCTOR_COMPILE_THREADS=%s\nexec python3 "$@"\n' \
  "$OMP_PROC_BIND" "$OMP_PLACES" "$THREADS" > "$root/python-bound" && chmod +x "$root/python-bound"
J=$O/dynunet-small-new.json
timeout -s INT -k 10 "$(cap $((${MAX_TIME:-40} + 30)))" env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" run dynunet \
  --size small --backend cpu --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise \
  --max-time "${MAX_TIME:-40}" -o "$J" > "$O/dynunet-ladder.log" 2>&1
log "ladder rc=$?"; pack
peer() {  # log name, cap, peer args...
  local limit; limit=$(cap "$2")
  env -u OMP_PROC_BIND -u OMP_PLACES LD_LIBRARY_PATH="$b/lib" timeout -s INT -k 10 "$limit" \
    "$b/new/stagebench" peer dynunet --size small --device cpu --python "$root/python-bound" \
    --scripts "$b/reference" --runs 20 --deadline $((limit > 15 ? limit - 8 : 5)) "${@:3}" \
    -o "$J" > "$O/$1.log" 2>&1
  log "$1 rc=$?"; pack
}
peer dynunet-peer 22 --variant-budget 12
peer dynunet-peer-compile-fp32 85 --variants compile-fp32 --variant-budget 70
env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" report "$J" > "$O/summary.md" 2>&1
rm -rf "$root" "$O"/*.lock; log done; pack
