#!/usr/bin/env bash
# dfm40 call 2: DeepFM small's products at 15 and 16 threads on oneDNN, and split into 15 (16)
# one-thread matmuls over C's rows or columns (scripts/cpu_server_gemm_probe.cpp "split"); main's
# ladder at 15 and 16 spinning threads, alternating, two rounds.
#   BUDGET=110 bash build-dfm40/call2.sh "$OUT"   (from the checkout's root, build-dfm40 carried)
set -u
OUT=${1:?out}
L=build-dfm40
O=$OUT/dfm40c2
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-110}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dfm40c2.tar.gz" -C "$OUT" dfm40c2 2>/dev/null; }
root=/tmp/dfm40-bundle
rm -rf $root && mkdir -p $root && tar -xJf $L/cpu-server.tar.xz -C $root || exit 1
b=$(dirname "$(find $root -name cpu_server_ops.py | head -1)")
export OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=ACTIVE LD_LIBRARY_PATH="$b/lib"
sb=$b/old/stagebench
step() {  # name limit env... -- cmd...
  local name=$1 limit; limit=$(cap "$2"); shift 2
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  log "$name: ${envs[*]} $* (limit $limit)"
  env "${envs[@]}" timeout -s INT -k 5 "$limit" "$@" > "$O/$name.log" 2>&1
  log "$name: exit $?"; pack
}
step probe 40 -- $L/probe split 15 16
run=(run deepfm --size small --backend cpu --stages baseline vectorized-fm preallocated-loss amp
  --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise --max-time 5)
for r in 1 2; do
  for t in 15 16; do
    step ab-t$t-$r 20 OMP_NUM_THREADS=$t -- "$sb" "${run[@]}" --no-ceilings -o "$O/ab-t$t-$r.json"
  done
done
python3 "$b/cpu_server_ab.py" "$O"/ab-t15-1.json "$O"/ab-t16-1.json "$O"/ab-t15-2.json "$O"/ab-t16-2.json > "$O/ab.md" 2>&1
gzip -f "$O"/*.json
rm -rf $root; pack; log done
