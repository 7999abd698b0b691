#!/usr/bin/env bash
# gfamx38's call on the 16-core host: Geneformer small with main's binary (old, if bundled) and
# this branch's (new: the reduced-precision attention on oneDNN's bf16 matmul, AMX; the fp32
# attention products as one 4-D matmul), then the new binary with both knobs off (main's paths),
# per-op tables on and off, which oneDNN kernels ran, and PyTorch's peer on equal cells
# (the menu with a 12 s deadline, then compile-bf16-sdpa alone, 80 s budget, merged).
# `bash build-gfamx38/call.sh` from the repository root on the device; LIMIT (s) stops it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
limit=${LIMIT:-268}
start=$SECONDS
off="STAGEBENCH_CPU_ATTENTION_ONEDNN=off STAGEBENCH_CPU_BATCHED_GRID=off"
SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  OLD_SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  OLD_MODEL=geneformer OLD_STAGES_geneformer="eager engine-fp16" OLD_MAX_TIME=5 OLD_LIMIT=25 \
  MODELS=geneformer MAX_TIME_geneformer=7 LADDER_SETUP_S=30 PEER=0 NOISE=0 \
  KNOB="$off" KNOB_STAGES="eager onnx-graph engine-fp32 engine-fp16" \
  OPS=1 OPS_MODEL=geneformer OPS_STAGES="eager onnx-graph engine-fp16" OPS_TIME=4 \
  VERBOSE_MODEL=geneformer VERBOSE_STAGES="eager engine-fp16" \
  BUNDLE="$here/cpu-server.tar.xz" bash scripts/cpu-server.sh run "$out"
o=$out/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
echo "[$((SECONDS - start)) s] ops with the knobs off" >>"$o/session.txt"
env $off STAGEBENCH_CPU_OP_TIMES=1 timeout -s INT -k 5 25 "${new[@]}" run geneformer --size small \
  --backend cpu --no-ceilings --stages eager onnx-graph engine-fp16 --max-time 4 \
  -o "$o/ops-knobs-off.json" >"$o/ops-knobs-off.log" 2>&1
echo "[$((SECONDS - start)) s] ops off: exit $?" >>"$o/session.txt"
python3 "$b/cpu_server_ops.py" "$o/ops-knobs-off.json" 25 >"$o/ops-knobs-off.md" 2>&1
python3 "$b/cpu_server_ops.py" "$o/ops-pool-on.json" 25 >"$o/ops-new.md" 2>&1
peer=(peer geneformer --size small --device cpu --python /tmp/cpu-server-bundle/python-bound
  --scripts "$b/reference" --runs 20 -o "$o/geneformer-small-new.json")
left=$((limit - (SECONDS - start) - 6))
if ((left >= 30)); then
  echo "[$((SECONDS - start)) s] peer 1" >>"$o/session.txt"
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 5 25 \
    "${new[@]}" "${peer[@]}" --variant-budget 10 --deadline 12 >"$o/geneformer-peer.log" 2>&1
  echo "[$((SECONDS - start)) s] peer 1: exit $?" >>"$o/session.txt"
fi
left=$((limit - (SECONDS - start) - 6))
if ((left >= 60)); then
  budget=$((left - 8 < 80 ? left - 8 : 80))
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 5 "$left" \
    "${new[@]}" "${peer[@]}" --variants compile-bf16-sdpa --variant-budget "$budget" \
    --deadline "$((budget + 1))" >"$o/geneformer-peer2.log" 2>&1
  echo "[$((SECONDS - start)) s] peer 2 (budget $budget s): exit $?" >>"$o/session.txt"
else
  echo "[$((SECONDS - start)) s] peer 2 skipped: $left s left" >>"$o/session.txt"
fi
for f in "$o"/geneformer-small-*.json; do
  "${new[@]}" report "$f" >"${f%.json}-report.txt" 2>&1
done
gzip -f "$o"/*.log
tar -czf "$out/cpu-server.tar.gz" -C "$out" cpu-server
rm -rf "$o"
echo "[$((SECONDS - start)) s] done"
