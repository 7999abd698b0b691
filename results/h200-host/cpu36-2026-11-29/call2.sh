#!/usr/bin/env bash
# cpu36's second host call: DeepFM small's full ladder with and without --lead-in 1, in
# alternating processes (plain, lead1, plain, lead1), 6 s each, paired-noise sampling; first
# the bf16 products alone and with the backend's per-call packs (probe pack 16).
set -u
R=/tmp/cpu36b; rm -rf $R; mkdir -p $R; tar xJf build-cpu36/cpu-server.tar.xz -C $R; b=$R/cpu-server
O=$OUT/c2; mkdir -p $O
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
S="--size small --backend cpu --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise --max-time 6"
LD_LIBRARY_PATH=$b/lib timeout 40 build-cpu36/probe pack 16 > $O/gemm-probe-pack.log 2>&1
echo "[$SECONDS s] probe pack exit $?" >> $O/session.txt
C=""
for r in 1 2; do for v in plain lead1; do
  F=""; [ $v = lead1 ] && F="--lead-in 1"
  echo "[$SECONDS s] $v-$r" >> $O/session.txt
  LD_LIBRARY_PATH=$b/lib timeout -s INT 30 $b/new/stagebench run deepfm $S $F $C -o $O/ab-$v-$r.json > $O/ab-$v-$r.log 2>&1
  echo "[$SECONDS s] exit $?" >> $O/session.txt
  C="--no-ceilings"
done; done
python3 $b/cpu_server_ab.py $O/ab-plain-1.json $O/ab-lead1-1.json $O/ab-plain-2.json $O/ab-lead1-2.json > $O/ab.md 2>&1
for f in $O/ab-*.json; do echo "# $(basename $f)"; LD_LIBRARY_PATH=$b/lib $b/new/stagebench report $f; done > $O/summary.md 2>&1
python3 $b/cpu_server_noise.py $O/ab-*.json >> $O/summary.md 2>&1
lscpu > $O/lscpu.txt
tar czf $OUT/c2.tar.gz -C $OUT c2
cat $O/ab.md
