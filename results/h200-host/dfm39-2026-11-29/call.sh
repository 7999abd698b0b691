#!/usr/bin/env bash
# dfm39's host call (issue 27, item 6): DeepFM's fp32 stages with gemm_small's fixed-shape items
# and traffic-weighted split, old (main's binary) and new alternating, and PyTorch's DeepFM and
# Enformer compiles (never timed beside our ladders on this host) in the same call.
# `LIMIT=300 bash build-dfm39/call.sh` from the repository root, bundle in build-dfm39/.
# Variants: "new" (the new binary's defaults), "off" (the new binary with
# STAGEBENCH_CPU_FIXED_ITEMS=off STAGEBENCH_CPU_SMALL_ITEMS_COST=macs: gemm_small as before),
# "old" (main's binary at 0785ddb).
# 1. DeepFM small, paired-noise, MT s a ladder: round 1 new (the call's fp32 ceiling), old, off;
#    round 2 new, old. Then the op tables of baseline and preallocated-loss (new, off).
# 2. PyTorch's DeepFM on the same cores: fp32-eager and compile-bf16 (cold inductor compile),
#    into round 1's new result.
# 3. Enformer small at 15 threads with libgomp spinning (cpuf38's valid placement), new binary,
#    then PyTorch's Enformer compile-bf16 into that result, with what is left.
set -u
T0=$SECONDS; LIMIT=${LIMIT:-300}
R=/tmp/dfm39; rm -rf $R; mkdir -p $R; tar xJf build-dfm39/cpu-server.tar.xz -C $R; b=$R/cpu-server
O=$OUT/d39; mkdir -p $O
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
S="--size small --backend cpu --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise"
log() { echo "[$((SECONDS - T0)) s] $*" >> $O/session.txt; }
pack() { tar czf $OUT/d39.tar.gz -C $OUT d39; }
lscpu > $O/lscpu.txt 2>&1
printf '#!/bin/sh\nexport OMP_PROC_BIND=close OMP_PLACES=cores TORCHINDUCTOR_COMPILE_THREADS=16\nexec python3 "$@"\n' > $R/python-bound
chmod +x $R/python-bound
left() { echo $((LIMIT - (SECONDS - T0))); }
run() {  # name limit env... -- args
  local name=$1 lim=$2; shift 2
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  ((lim > $(left))) && lim=$(left)
  ((lim < 5)) && { log "$name: skipped, no time left"; return; }
  log "$name: ${envs[*]} $*"
  env "${envs[@]}" LD_LIBRARY_PATH=$b/lib timeout -s INT -k 5 $lim "$@" > $O/$name.log 2>&1
  log "$name: exit $?"; pack
}
genv() {  # variant -> env assignments
  case $1 in
    off) echo STAGEBENCH_CPU_FIXED_ITEMS=off STAGEBENCH_CPU_SMALL_ITEMS_COST=macs ;;
    *) echo DFM39=1 ;;
  esac
}
MT=${MT:-5}
files=()
for r in 1 2; do
  vs="new old off"; [[ $r == 2 ]] && vs="new old"
  for v in $vs; do
    bin=$b/new/stagebench C=--no-ceilings out=$O/ab-$v-$r.json
    [[ $v == old ]] && bin=$b/old/stagebench
    [[ $v == new && $r == 1 ]] && C=""
    run ab-$v-$r $((MT + 25)) $(genv $v) -- $bin run deepfm $S $C --max-time $MT -o $out
    files+=($out)
  done
done
python3 $b/cpu_server_ab.py "${files[@]}" > $O/ab-deepfm.md 2>&1
for v in new off; do
  run ops-$v 15 STAGEBENCH_CPU_OP_TIMES=1 $(genv $v) -- $b/new/stagebench run deepfm --size small --backend cpu --no-ceilings --stages baseline preallocated-loss --max-time 3 -o $O/ops-$v.json
done
# PyTorch's DeepFM (unbound stagebench; python binds itself), into round 1's new result.
run deepfm-peer 100 -u OMP_PROC_BIND -u OMP_PLACES -- $b/new/stagebench peer deepfm --size small --device cpu --python $R/python-bound --scripts $b/reference --runs 20 --variants fp32-eager compile-bf16 --variant-budget 80 --deadline 95 -o $O/ab-new-1.json
# Enformer: 15 threads, spinning (cpuf38), then PyTorch's compile-bf16 with what is left.
E="OMP_NUM_THREADS=15 OMP_WAIT_POLICY=ACTIVE"
run enformer 40 $E -- $b/new/stagebench run enformer $S --no-ceilings --max-time ${MT_enformer:-16} -o $O/enformer.json
P=$(( $(left) - 5 ))
if ((P > 30)); then
  run enformer-peer $P -u OMP_PROC_BIND -u OMP_PLACES -- $b/new/stagebench peer enformer --size small --device cpu --python $R/python-bound --scripts $b/reference --runs 10 --variants compile-bf16 --variant-budget $((P - 8)) --deadline $((P - 3)) -o $O/enformer.json
fi
{
  for f in $O/ab-new-1.json $O/enformer.json; do echo "# $(basename $f)"; LD_LIBRARY_PATH=$b/lib $b/new/stagebench report $f; echo; done
  for f in $O/ops-*.json; do echo "# $(basename $f)"; python3 $b/cpu_server_ops.py $f 45; done
  python3 $b/cpu_server_noise.py $O/ab-*-[12].json
} > $O/summary.md 2>&1
gzip -f $O/*.log
log done; pack
cat $O/ab-deepfm.md
