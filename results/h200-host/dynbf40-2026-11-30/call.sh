#!/usr/bin/env bash
# dynbf40's host call (issue 27, item 6): DynUNet small's bf16-mixed stage on the cpu backend's
# oneDNN bf16 convolutions, on the H200 machine's 16-core host at 15 threads with libgomp
# spinning, judged by the paired criterion. The session's device reserve left this call 175 s,
# so in one call: (1) main's binary ("old", ec6a103, whose DynUNet and convolution code is
# ab13e91's: bf16-mixed skipped, every stage fp32), its baseline and channels-last (fp32) in a
# 12 s ladder, then the new binary's whole ladder (25 s); (2) the new binary's op table
# (STAGEBENCH_CPU_OP_TIMES=1) of bf16-mixed and channels-last; (3) DNNL_VERBOSE of bf16-mixed:
# which oneDNN kernel ran each convolution; (4) PyTorch's menu for DynUNet (12 s deadline), then
# its bf16-autocast (and compile-fp32 if 90 s are left, which they will not be: lead38 timed it
# at 49.240 ms on this host). From the checkout's root with build-dynbf40/ carried:
#   BUDGET=165 bash build-dynbf40/call.sh "$OUT"
set -u
OUT=${1:?out}
L=build-dynbf40
O=$OUT/dynbf40
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-165}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 8)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/dynbf40.tar.gz" -C "$OUT" dynbf40 2>/dev/null; }
export THREADS=15 OMP_WAIT_POLICY=ACTIVE
SAMP="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise"
log "cpu-server start"
MODELS=dynunet MAX_TIME_dynunet=25 LADDER_SETUP_S=30 \
  OLD_MODEL=dynunet OLD_STAGES="baseline channels-last" OLD_MAX_TIME=12 OLD_LIMIT=35 OLD_SAMPLING="$SAMP" \
  SAMPLING="$SAMP" \
  OPS=1 OPS_MODEL=dynunet OPS_STAGES="bf16-mixed channels-last" OPS_TIME=6 \
  VERBOSE_MODEL=dynunet VERBOSE_STAGES="bf16-mixed" \
  PEER_LAST=1 PEER_MODELS=dynunet PEER_DEADLINE_dynunet=12 PEER_VARIANT_BUDGET=15 \
  NOISE=0 \
  BUNDLE=$L/cpu-server.tar.xz timeout -s INT "$(cap 140)" bash $L/cpu-server.sh run "$O"
log "cpu-server rc=$?"
c=$O/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
# main's ladder against the new one, stage by stage (the ratio of medians; > 1: new faster).
cp "$c/dynunet-small-old.json" "$c/ab-main-1.json" 2>/dev/null
cp "$c/dynunet-small-new.json" "$c/ab-bf16-1.json" 2>/dev/null
python3 "$b/cpu_server_ab.py" "$c/ab-main-1.json" "$c/ab-bf16-1.json" > "$c/ab.md" 2>&1
rm -f "$c/ab-main-1.json" "$c/ab-bf16-1.json"
pack
peer() {  # variants, budget, the least time it needs
  local limit; limit=$(cap $(($2 + 25)))
  ((limit < $3)) && { log "peer $1 skipped: $limit s left"; return; }
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS=$THREADS LD_LIBRARY_PATH="$b/lib" \
    timeout -s INT -k 5 "$limit" "$b/new/stagebench" peer dynunet --size small --device cpu \
    --python /tmp/cpu-server-bundle/python-bound --scripts "$b/reference" --runs 20 \
    --variants "$1" --variant-budget "$2" --deadline $((limit > 15 ? limit - 8 : 5)) \
    -o "$c/dynunet-small-new.json" > "$c/dynunet-peer-$1.log" 2>&1
  log "peer dynunet $1 rc=$?"; pack
}
peer bf16-autocast 20 25
peer compile-fp32 75 90
[ -f "$c/dynunet-small-new.json" ] && LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" report "$c/dynunet-small-new.json" > "$c/dynunet-report-final.md" 2>&1
[ -f "$c/dynunet-small-old.json" ] && LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench" report "$c/dynunet-small-old.json" > "$c/dynunet-report-old.md" 2>&1
rm -rf /tmp/cpu-server-bundle; pack
log "done"
