#!/usr/bin/env bash
# dfm40 call 4: op tables of DeepFM small (baseline, preallocated-loss) at 15 spinning threads:
# dfm40's second form of the even split (whole team, only ops the grain path runs in parallel),
# main's binary, and the same dfm40 binary with STAGEBENCH_CPU_PARALLEL_SPLIT=grain.
#   BUDGET=30 bash build-dfm40/call4.sh "$OUT"   (from the checkout's root, build-dfm40 carried)
set -u
OUT=${1:?out}
L=build-dfm40
O=$OUT/dfm40c4
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-30}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 3)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dfm40c4.tar.gz" -C "$OUT" dfm40c4 2>/dev/null; }
root=/tmp/dfm40-bundle
rm -rf $root && mkdir -p $root && tar -xJf $L/cpu-server.tar.xz -C $root || exit 1
b=$(dirname "$(find $root -name cpu_server_ops.py | head -1)")
export OMP_NUM_THREADS=15 OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=ACTIVE
export LD_LIBRARY_PATH="$b/lib" STAGEBENCH_CPU_OP_TIMES=1
ops=(run deepfm --size small --backend cpu --no-ceilings --stages baseline preallocated-loss --max-time 2.5)
for v in even old grain; do
  bin=$b/new/stagebench; env=()
  [[ $v == old ]] && bin=$b/old/stagebench
  [[ $v == grain ]] && env=(STAGEBENCH_CPU_PARALLEL_SPLIT=grain)
  limit=$(cap 9); log "ops-$v (limit $limit)"
  env "${env[@]}" timeout -s INT -k 2 "$limit" "$bin" "${ops[@]}" -o "$O/ops-$v.json" > "$O/ops-$v.log" 2>&1
  log "ops-$v: exit $?"
  python3 "$b/cpu_server_ops.py" "$O/ops-$v.json" 45 > "$O/ops-$v.md" 2>&1; pack
done
gzip -f "$O"/*.json "$O"/*.log
rm -rf $root; pack; log done
