#!/usr/bin/env bash
# cpuf38's host call (issue 27, item 6): parallel_for's grain on all four CPU ladders, Enformer
# at the placement that makes its stages valid, and DeepFM's PyTorch peer, in one call.
# `LIMIT=295 bash build-cpuf38/call.sh` from the repository root, bundle in build-cpuf38/.
# Variants are processes of the new binary: "new" (defaults: grain 8192), "g32" (the grain before,
# STAGEBENCH_CPU_PARALLEL_GRAIN=32768), "g4k"/"g16k" (4096/16384); "old" is main's binary.
# 1. DeepFM small, paired-noise, MT s a ladder: round 1 new (the call's fp32 ceiling), g32, g4k,
#    old; round 2 new, g32. Then the op tables of preallocated-loss (new, g32).
# 2. Geneformer and DynUNet small: new, g32 (one process each, 5 s ladders).
# 3. Enformer small at 15 threads with libgomp spinning (gfcpu37's valid placement): g32
#    8 s, then new for 33 s (gfcpu37: ~33 s for all 7 stages at 1%).
# 4. PyTorch's DeepFM peer on the same cores: the menu with a short deadline (fp32-eager first),
#    then compile-bf16 (cpu35's best) merged into the block, within what is left.
set -u
T0=$SECONDS; LIMIT=${LIMIT:-295}
R=/tmp/cpuf38; rm -rf $R; mkdir -p $R; tar xJf build-cpuf38/cpu-server.tar.xz -C $R; b=$R/cpu-server
O=$OUT/f38; mkdir -p $O
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
S="--size small --backend cpu --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise"
log() { echo "[$((SECONDS - T0)) s] $*" >> $O/session.txt; }
pack() { tar czf $OUT/f38.tar.gz -C $OUT f38; }
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
    g32) echo STAGEBENCH_CPU_PARALLEL_GRAIN=32768 ;;
    g4k) echo STAGEBENCH_CPU_PARALLEL_GRAIN=4096 ;;
    g16k) echo STAGEBENCH_CPU_PARALLEL_GRAIN=16384 ;;
    *) echo CPUF38=1 ;;
  esac
}
MT=${MT:-6}
files=()
for r in 1 2; do
  vs="new g32 g4k old"; [[ $r == 2 ]] && vs="new g32"
  for v in $vs; do
    bin=$b/new/stagebench C=--no-ceilings out=$O/ab-$v-$r.json
    [[ $v == old ]] && bin=$b/old/stagebench
    [[ $v == new && $r == 1 ]] && C=""
    run ab-$v-$r $((MT + 25)) $(genv $v) -- $bin run deepfm $S $C --max-time $MT -o $out
    files+=($out)
  done
done
python3 $b/cpu_server_ab.py "${files[@]}" > $O/ab-deepfm.md 2>&1
for v in new g32; do
  run ops-$v 15 STAGEBENCH_CPU_OP_TIMES=1 $(genv $v) -- $b/new/stagebench run deepfm --size small --backend cpu --no-ceilings --stages preallocated-loss --max-time 3 -o $O/ops-$v.json
done
for m in geneformer dynunet; do
  mf=()
  for v in new g32; do
    mkdir -p $O/$m
    run $m-$v-1 30 $(genv $v) -- $b/new/stagebench run $m $S --no-ceilings --max-time 5 -o $O/$m/ab-$v-1.json
    mf+=($O/$m/ab-$v-1.json)
  done
  python3 $b/cpu_server_ab.py "${mf[@]}" > $O/ab-$m.md 2>&1
done
# Enformer: 15 threads, spinning (gfcpu37); g32 first, short, then the new default for 33 s.
E="OMP_NUM_THREADS=15 OMP_WAIT_POLICY=ACTIVE"
run enformer-g32 30 $E $(genv g32) -- $b/new/stagebench run enformer $S --no-ceilings --max-time 8 -o $O/enformer-g32.json
run enformer-new 55 $E -- $b/new/stagebench run enformer $S --no-ceilings --max-time 33 -o $O/enformer-new.json
# PyTorch's DeepFM peer (unbound stagebench; python binds itself), into round 1's new result.
P=$(( $(left) - 10 ))
if ((P > 30)); then
  run deepfm-peer1 25 -u OMP_PROC_BIND -u OMP_PLACES -- $b/new/stagebench peer deepfm --size small --device cpu --python $R/python-bound --variant-budget 15 --scripts $b/reference --runs 20 --deadline 12 -o $O/ab-new-1.json
  P=$(( $(left) - 10 ))
  run deepfm-peer2 $((P + 3)) -u OMP_PROC_BIND -u OMP_PLACES -- $b/new/stagebench peer deepfm --size small --device cpu --python $R/python-bound --variants compile-bf16 --variant-budget $((P - 5)) --scripts $b/reference --runs 20 --deadline $((P - 2)) -o $O/ab-new-1.json
fi
{
  for f in $O/ab-new-1.json $O/enformer-*.json $O/geneformer/ab-*.json $O/dynunet/ab-*.json; do echo "# $(basename $f)"; LD_LIBRARY_PATH=$b/lib $b/new/stagebench report $f; echo; done
  for f in $O/ops-*.json; do echo "# $(basename $f)"; python3 $b/cpu_server_ops.py $f 40; done
  python3 $b/cpu_server_noise.py $O/ab-*-[12].json
} > $O/summary.md 2>&1
gzip -f $O/*.log
log done; pack
cat $O/ab-deepfm.md
