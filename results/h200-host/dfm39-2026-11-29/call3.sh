#!/usr/bin/env bash
# NOT RUN (dfm39's device time was spent): call2.sh with the menu runs given the time they need.
# In call 2 the menu runs (fp32-eager first) were killed by this script's own 20 s and 18 s
# limits on a cold machine before writing a block, so both compile steps exited 2 again; cpuf38's
# DeepFM menu run with --deadline 12 took 23 s. Same bundle as calls 1 and 2 (new = 4dd1d4c).
# `LIMIT=330 bash build-dfm39/call3.sh` from the repository root (about 330 s of command).
# 1. DeepFM small ladder at the committed defaults (the traffic-weighted split on, the fixed-shape
#    items off: STAGEBENCH_CPU_FIXED_ITEMS=off on this binary), the call's fp32 ceiling, 3 s.
# 2. PyTorch's DeepFM: the menu with a short deadline (fp32-eager), then compile-bf16.
# 3. Enformer small at 15 spinning threads; PyTorch's menu (fp32-eager), then compile-bf16 with
#    what is left.
set -u
T0=$SECONDS; LIMIT=${LIMIT:-330}
R=/tmp/dfm39; rm -rf $R; mkdir -p $R; tar xJf build-dfm39/cpu-server.tar.xz -C $R; b=$R/cpu-server
O=$OUT/d39c; mkdir -p $O
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
S="--size small --backend cpu --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise"
log() { echo "[$((SECONDS - T0)) s] $*" >> $O/session.txt; }
pack() { tar czf $OUT/d39c.tar.gz -C $OUT d39c; }
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
N=$b/new/stagebench
P="--device cpu --python $R/python-bound --scripts $b/reference"
run deepfm 25 STAGEBENCH_CPU_FIXED_ITEMS=off -- $N run deepfm $S --max-time 3 -o $O/deepfm.json
run deepfm-peer1 45 -u OMP_PROC_BIND -u OMP_PLACES -- $N peer deepfm --size small $P --runs 20 --variant-budget 15 --deadline 12 -o $O/deepfm.json
run deepfm-peer2 95 -u OMP_PROC_BIND -u OMP_PLACES -- $N peer deepfm --size small $P --runs 20 --variants compile-bf16 --variant-budget 80 --deadline 88 -o $O/deepfm.json
run enformer 25 OMP_NUM_THREADS=15 OMP_WAIT_POLICY=ACTIVE -- $N run enformer $S --max-time 5 -o $O/enformer.json
run enformer-peer1 45 -u OMP_PROC_BIND -u OMP_PLACES -- $N peer enformer --size small $P --runs 10 --variant-budget 15 --deadline 10 -o $O/enformer.json
L=$(( $(left) - 4 ))
if ((L > 20)); then
  run enformer-peer2 $L -u OMP_PROC_BIND -u OMP_PLACES -- $N peer enformer --size small $P --runs 10 --variants compile-bf16 --variant-budget $((L - 6)) --deadline $((L - 3)) -o $O/enformer.json
fi
{
  for f in $O/deepfm.json $O/enformer.json; do echo "# $(basename $f)"; LD_LIBRARY_PATH=$b/lib $N report $f; echo; done
} > $O/summary.md 2>&1
gzip -f $O/*.log
log done; pack
rm -rf $O
