#!/usr/bin/env bash
# dfmcpu37's host call: DeepFM small's whole ladder in alternating processes, paired-noise
# sampling, the new binary's first process measuring the fp32 ceiling; variants (each a process
# a round): "off" = the new binary with every dfmcpu37 knob at its old path (main's code but
# LayerNorm backward's kept buffer), "new" = the defaults, "g8k" = new with
# STAGEBENCH_CPU_PARALLEL_GRAIN=8192, and "old" = main's binary where the bundle has one. Then
# the op tables of preallocated-loss and amp, off and new (STAGEBENCH_CPU_OP_TIMES=1), and
# PyTorch's peer on the same cores, last, within what is left of the call's budget.
# Run from the repository root with the bundle carried in build-dfmcpu37/.
set -u
T0=$SECONDS; LIMIT=${LIMIT:-280}
R=/tmp/dfm37; rm -rf $R; mkdir -p $R; tar xJf build-dfmcpu37/cpu-server.tar.xz -C $R; b=$R/cpu-server
O=$OUT/d37; mkdir -p $O
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
S="--size small --backend cpu --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise"
OFF="STAGEBENCH_CPU_BF16_IMAGES=off STAGEBENCH_CPU_GEMM_BIAS=off STAGEBENCH_CPU_FUSED_DROPOUT=off STAGEBENCH_CPU_SUM_BLOCK=64"
log() { echo "[$((SECONDS - T0)) s] $*" >> $O/session.txt; }
pack() { tar czf $OUT/d37.tar.gz -C $OUT d37; }
lscpu > $O/lscpu.txt 2>&1
# PyTorch binds its own threads (scripts/cpu-server.sh says why the peer runs unbound).
printf '#!/bin/sh\nexport OMP_PROC_BIND=close OMP_PLACES=cores TORCHINDUCTOR_COMPILE_THREADS=16\nexec python3 "$@"\n' > $R/python-bound
chmod +x $R/python-bound
left() { echo $((LIMIT - (SECONDS - T0))); }
run() {  # name limit env... -- args
  local name=$1 lim=$2; shift 2
  local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  ((lim > $(left))) && lim=$(left)
  ((lim < 5)) && { log "$name: skipped, no time left"; return; }
  log "$name: ${envs[*]} $*"
  env "${envs[@]}" LD_LIBRARY_PATH=$b/lib timeout -s INT -k 10 $lim "$@" > $O/$name.log 2>&1
  log "$name: exit $?"; pack
}
MT=${MT:-7}
files=()
for r in 1 2; do
  for v in off new g8k old; do
    bin=$b/new/stagebench envs=(); C=--no-ceilings
    case $v in
      off) read -ra envs <<<"$OFF" ;;
      g8k) envs=(STAGEBENCH_CPU_PARALLEL_GRAIN=8192) ;;
      old) bin=$b/old/stagebench; [[ -x $bin ]] || continue ;;
    esac
    out=$O/ab-$v-$r.json
    if [[ $v == new && $r == 1 ]]; then C=""; out=$O/deepfm-small-new.json; fi
    run ab-$v-$r $((MT + 30)) "${envs[@]}" -- $bin run deepfm $S $C --max-time $MT -o $out
    [[ $out != $O/ab-$v-$r.json ]] && cp $out $O/ab-$v-$r.json 2>/dev/null
    files+=($O/ab-$v-$r.json)
  done
done
python3 $b/cpu_server_ab.py "${files[@]}" > $O/ab.md 2>&1
run ops-off 20 STAGEBENCH_CPU_OP_TIMES=1 $OFF -- $b/new/stagebench run deepfm --size small --backend cpu --no-ceilings --stages preallocated-loss amp --max-time 3 -o $O/ops-off.json
run ops-new 20 STAGEBENCH_CPU_OP_TIMES=1 -- $b/new/stagebench run deepfm --size small --backend cpu --no-ceilings --stages preallocated-loss amp --max-time 3 -o $O/ops-new.json
# PyTorch last: what is left, less 12 s for the summary.
P=$(( $(left) - 12 ))
if ((P > 40)); then
  run deepfm-peer $((P + 5)) -u OMP_PROC_BIND -u OMP_PLACES -- $b/new/stagebench peer deepfm --size small --device cpu --python $R/python-bound --variant-budget 85 --scripts $b/reference --runs 20 --deadline $((P - 5)) -o $O/deepfm-small-new.json
fi
{
  for f in $O/deepfm-small-new.json $O/ab-*.json; do echo "# $(basename $f)"; LD_LIBRARY_PATH=$b/lib $b/new/stagebench report $f; echo; done
  for f in $O/ops-*.json; do echo "# $(basename $f)"; python3 $b/cpu_server_ops.py $f 40; done
  python3 $b/cpu_server_noise.py $O/ab-*.json
} > $O/summary.md 2>&1
log done; pack
cat $O/ab.md
