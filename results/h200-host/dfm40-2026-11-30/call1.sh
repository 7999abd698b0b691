#!/usr/bin/env bash
# dfm40 call 1 (issue 27, item 6): where DeepFM small's fp32 step goes on the 16-core host at
# main's code, at 15 spinning threads (lead39's placement) and 16: op tables, oneDNN's verbose
# exec lines, the GEMM probe at 15 and 16 threads, and a short ladder with the fp32 ceiling.
#   BUDGET=150 bash build-dfm40/call1.sh "$OUT"   (from the checkout's root, build-dfm40 carried)
set -u
OUT=${1:?out}
L=build-dfm40
O=$OUT/dfm40c1
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-150}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dfm40c1.tar.gz" -C "$OUT" dfm40c1 2>/dev/null; }
root=/tmp/dfm40-bundle
rm -rf $root && mkdir -p $root && tar -xJf $L/cpu-server.tar.xz -C $root || exit 1
b=$(dirname "$(find $root -name cpu_server_ops.py | head -1)")
lscpu > "$O/lscpu.txt"
export OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=ACTIVE LD_LIBRARY_PATH="$b/lib"
sb=$b/old/stagebench
step() {  # name limit env... -- cmd...
  local name=$1 limit; limit=$(cap "$2"); shift 2
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  log "$name: ${envs[*]} $* (limit $limit)"
  env "${envs[@]}" timeout -s INT -k 5 "$limit" "$@" > "$O/$name.log" 2>&1
  log "$name: exit $?"; pack
}
run=(run deepfm --size small --backend cpu)
step ops15 30 OMP_NUM_THREADS=15 STAGEBENCH_CPU_OP_TIMES=1 -- "$sb" "${run[@]}" --no-ceilings \
  --stages baseline preallocated-loss --max-time 4 -o "$O/ops15.json"
step ops16 30 OMP_NUM_THREADS=16 STAGEBENCH_CPU_OP_TIMES=1 -- "$sb" "${run[@]}" --no-ceilings \
  --stages baseline preallocated-loss --max-time 4 -o "$O/ops16.json"
step verbose 25 OMP_NUM_THREADS=15 DNNL_VERBOSE=1 -- "$sb" "${run[@]}" --no-ceilings \
  --stages baseline --max-time 1 --min-samples 3 --max-samples 3 -o "$O/verbose.json"
step probe 30 -- "$b/probe" 15 16
step ladder15 45 OMP_NUM_THREADS=15 -- "$sb" "${run[@]}" --stages baseline vectorized-fm \
  preallocated-loss amp --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise \
  --max-time 6 -o "$O/ladder15.json"
for j in ops15 ops16; do python3 "$b/cpu_server_ops.py" "$O/$j.json" 40 > "$O/$j.md" 2>&1; done
"$sb" report "$O/ladder15.json" > "$O/ladder15.md" 2>&1
grep -c "exec" "$O/verbose.log" >> "$O/call.log"; gzip -f "$O/verbose.log"
rm -rf $root; pack; log done
