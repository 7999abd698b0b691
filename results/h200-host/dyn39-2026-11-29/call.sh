#!/usr/bin/env bash
# dyn39's host call (issue 27 item 6): DynUNet small on the H200 machine's 16-core host, 15
# threads spinning (OMP_WAIT_POLICY=ACTIVE: the placement that made Enformer's stages valid in
# cpuf38), every step bounded and its output kept:
#  1. the new binary's whole ladder with the fp32 GEMM ceiling it measures (MAX_TIME s);
#  2. main's binary (old) and the new one in alternating processes, 2 rounds, baseline,
#     channels-last and compile (AB_TIME s each; scripts/cpu_server_ab.py compares each round);
#  3. the op tables (STAGEBENCH_CPU_OP_TIMES=1) of both binaries, baseline and channels-last;
#  4. PyTorch's compile-fp32 beside it (`stagebench peer dynunet --variants compile-fp32`).
# From the checkout's root with build-dyn39/ carried:  bash build-dyn39/call.sh "$OUT"
set -u
OUT=${1:?out}
L=build-dyn39
O=$OUT/dyn39
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-245}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 5)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dyn39.tar.gz" -C "$OUT" dyn39 2>/dev/null; }
root=/tmp/dyn39-bundle
rm -rf "$root" && mkdir -p "$root" && tar -xJf $L/cpu-server.tar.xz -C "$root" || exit 1
b=$(dirname "$(find "$root" -name cpu_server_ops.py | head -1)")
export THREADS=${THREADS:-15} OMP_WAIT_POLICY=ACTIVE
export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores
{ date -u; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)'
  echo "OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_WAIT_POLICY=$OMP_WAIT_POLICY OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$O/session.txt" 2>&1
printf '#!/bin/sh\nexport OMP_PROC_BIND=%s OMP_PLACES=%s TORCHINDUCTOR_COMPILE_THREADS=%s\nexec python3 "$@"\n' \
  "$OMP_PROC_BIND" "$OMP_PLACES" "$THREADS" > "$root/python-bound" && chmod +x "$root/python-bound"
sb() { env LD_LIBRARY_PATH="$b/lib" "$b/$1/stagebench" "${@:2}"; }
samp=(--max-samples 400 --stable-checks 10 --warmup 1)
# 1. the whole ladder, the ceiling first
timeout -s INT -k 10 "$(cap $((${MAX_TIME:-50} + 40)))" env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" run dynunet \
  --size small --backend cpu "${samp[@]}" --max-time "${MAX_TIME:-50}" \
  -o "$O/dynunet-small-new.json" > "$O/dynunet-ladder.log" 2>&1
log "ladder rc=$?"; pack
# 2. old and new in alternating processes
ab=()
for r in 1 2; do
  for v in old new; do
    timeout -s INT -k 5 "$(cap $((${AB_TIME:-6} + 18)))" env LD_LIBRARY_PATH="$b/lib" "$b/$v/stagebench" run dynunet \
      --size small --backend cpu --no-ceilings --stages baseline channels-last compile "${samp[@]}" \
      --max-time "${AB_TIME:-6}" -o "$O/ab-$v-$r.json" > "$O/ab-$v-$r.log" 2>&1
    log "ab $v $r rc=$?"; ab+=("$O/ab-$v-$r.json")
  done
done
python3 "$b/cpu_server_ab.py" "${ab[@]}" > "$O/ab.md" 2>&1; pack
# 3. op tables
for v in new old; do
  timeout -s INT -k 5 "$(cap 22)" env STAGEBENCH_CPU_OP_TIMES=1 LD_LIBRARY_PATH="$b/lib" "$b/$v/stagebench" run dynunet \
    --size small --backend cpu --no-ceilings --stages baseline channels-last --max-time 4 \
    -o "$O/ops-$v.json" > "$O/ops-$v.log" 2>&1
  log "ops $v rc=$?"
  python3 "$b/cpu_server_ops.py" "$O/ops-$v.json" 30 > "$O/ops-$v.md" 2>&1; pack
done
# 4. PyTorch's compile-fp32 (its compile unbound, its threads bound by python-bound)
limit=$(cap 95)
env -u OMP_PROC_BIND -u OMP_PLACES LD_LIBRARY_PATH="$b/lib" timeout -s INT -k 10 "$limit" \
  "$b/new/stagebench" peer dynunet --size small --device cpu --python "$root/python-bound" \
  --scripts "$b/reference" --runs 20 --variants compile-fp32 --variant-budget 70 \
  --deadline $((limit > 15 ? limit - 10 : 5)) -o "$O/dynunet-small-new.json" > "$O/dynunet-peer.log" 2>&1
log "peer rc=$?"; pack
{ sb new report "$O/dynunet-small-new.json"; } > "$O/summary.md" 2>&1
python3 "$b/cpu_server_noise.py" "$O/dynunet-small-new.json" >> "$O/summary.md" 2>&1
rm -rf "$root" "$O"/*.lock; log done; pack
