#!/usr/bin/env bash
# The VM's A/B (2 vCPUs shared with the other helpers' builds): Geneformer small's eager and
# onnx-graph under each STAGEBENCH_CPU_GRID_PACK mode of MODES (default "b on off"), alternating,
# ROUNDS rounds of a process each (TIME s of measuring); then one STAGEBENCH_CPU_OP_TIMES=1 run
# of each mode. Eager runs the same path in every mode, so onnx-graph / eager within a process
# is the paired figure. BIN: the stagebench; OUT: output folder; THREADS: OMP_NUM_THREADS.
set -u
BIN=${BIN:?}; OUT=${OUT:?}; mkdir -p "$OUT"
export OMP_NUM_THREADS=${THREADS:-1} OMP_WAIT_POLICY=PASSIVE
run() {  # run NAME ENV... : one ladder of eager and onnx-graph
  local name=$1; shift
  env "$@" "$BIN" run geneformer --size small --backend cpu --stages eager onnx-graph \
    --no-ceilings --max-time "${TIME:-6}" -q -o "$OUT/$name.json" > "$OUT/$name.log" 2>&1
}
for ((r = 1; r <= ${ROUNDS:-3}; r++)); do
  for m in ${MODES:-b on off}; do run "pack-$m-$r" STAGEBENCH_CPU_GRID_PACK=$m; done
done
for m in ${MODES:-b on off}; do
  run "ops-pack-$m" STAGEBENCH_CPU_OP_TIMES=1 STAGEBENCH_CPU_GRID_PACK=$m
done
