#!/usr/bin/env bash
# dfm40 call 3: main's binary (old) against dfm40's (new: parallel_for's even split by default;
# grain: the same binary with STAGEBENCH_CPU_PARALLEL_SPLIT=grain, main's chunking), DeepFM small
# at 15 spinning threads (lead39's placement), three rounds in rotated order, the first process
# measuring the fp32 ceiling; then op tables of old and new.
#   BUDGET=125 bash build-dfm40/call3.sh "$OUT"   (from the checkout's root, build-dfm40 carried)
set -u
OUT=${1:?out}
L=build-dfm40
O=$OUT/dfm40c3
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-125}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dfm40c3.tar.gz" -C "$OUT" dfm40c3 2>/dev/null; }
root=/tmp/dfm40-bundle
rm -rf $root && mkdir -p $root && tar -xJf $L/cpu-server.tar.xz -C $root || exit 1
b=$(dirname "$(find $root -name cpu_server_ops.py | head -1)")
lscpu > "$O/lscpu.txt"
export OMP_NUM_THREADS=15 OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=ACTIVE
export LD_LIBRARY_PATH="$b/lib"
step() {  # name limit env... -- cmd...
  local name=$1 limit; limit=$(cap "$2"); shift 2
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  ((limit < 8)) && { log "$name: skipped ($limit s left)"; return; }
  log "$name: ${envs[*]} $* (limit $limit)"
  env "${envs[@]}" timeout -s INT -k 5 "$limit" "$@" > "$O/$name.log" 2>&1
  log "$name: exit $?"; pack
}
run=(run deepfm --size small --backend cpu --stages baseline vectorized-fm preallocated-loss amp
  --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise --max-time 5)
variant() {  # name round [extra args]
  local name=$1 r=$2; shift 2
  case $name in
    old) step ab-old-$r 25 -- "$b/old/stagebench" "${run[@]}" "$@" -o "$O/ab-old-$r.json" ;;
    new) step ab-new-$r 25 -- "$b/new/stagebench" "${run[@]}" "$@" -o "$O/ab-new-$r.json" ;;
    grain) step ab-grain-$r 25 STAGEBENCH_CPU_PARALLEL_SPLIT=grain -- "$b/new/stagebench" \
             "${run[@]}" "$@" -o "$O/ab-grain-$r.json" ;;
  esac
}
variant old 1          # with the ceiling
variant new 1 --no-ceilings
variant grain 1 --no-ceilings
for v in new grain old; do variant $v 2 --no-ceilings; done
for v in grain old new; do variant $v 3 --no-ceilings; done
ops=(run deepfm --size small --backend cpu --no-ceilings --stages baseline preallocated-loss --max-time 3)
step ops-old 15 STAGEBENCH_CPU_OP_TIMES=1 -- "$b/old/stagebench" "${ops[@]}" -o "$O/ops-old.json"
step ops-new 15 STAGEBENCH_CPU_OP_TIMES=1 -- "$b/new/stagebench" "${ops[@]}" -o "$O/ops-new.json"
cd "$O" && python3 "$b/cpu_server_ab.py" ab-old-1.json ab-new-1.json ab-grain-1.json ab-old-2.json \
  ab-new-2.json ab-grain-2.json ab-old-3.json ab-new-3.json ab-grain-3.json > ab.md 2>&1; cd - > /dev/null
for j in old new; do python3 "$b/cpu_server_ops.py" "$O/ops-$j.json" 45 > "$O/ops-$j.md" 2>&1; done
"$b/old/stagebench" report "$O/ab-old-1.json" > "$O/ab-old-1-report.md" 2>&1
gzip -f "$O"/*.json "$O"/*.log
rm -rf $root; pack; log done
