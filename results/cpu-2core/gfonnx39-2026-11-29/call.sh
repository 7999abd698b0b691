#!/usr/bin/env bash
# gfonnx39's host call (for the lead; not run by gfonnx39, which had no device time): Geneformer
# small's eager and onnx-graph under STAGEBENCH_CPU_GRID_PACK=b (the default), on and off, in
# alternating rounds (cpu-server.sh's AB_VARIANTS; eager is the same path in all three), then
# one op-times run of each mode and a DNNL_VERBOSE run of onnx-graph under each.
# Bundle (here): BINARIES="new=build-spr/harness/stagebench" bash scripts/cpu-server.sh bundle \
#   build-gfonnx39/cpu-server   (build-spr from this branch, as cpu-server.sh's header says)
# Device:  bash build-gfonnx39/call.sh   (OUT set by the device tool; ~150 s)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
start=$SECONDS
AB_VARIANTS="b STAGEBENCH_CPU_GRID_PACK=b; on STAGEBENCH_CPU_GRID_PACK=on; off STAGEBENCH_CPU_GRID_PACK=off" \
  AB_MODEL=geneformer AB_STAGES="eager onnx-graph" AB_ROUNDS=2 AB_TIME=3 \
  MODELS=" " PEER=0 NOISE=0 \
  BUNDLE="$here/cpu-server.tar.xz" bash scripts/cpu-server.sh run "$out"
o=$out/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
for mode in b on off; do
  echo "[$((SECONDS - start)) s] ops $mode" >>"$o/session.txt"
  env STAGEBENCH_CPU_GRID_PACK=$mode STAGEBENCH_CPU_OP_TIMES=1 timeout -s INT -k 3 15 \
    "${new[@]}" run geneformer --size small --backend cpu --no-ceilings \
    --stages eager onnx-graph --max-time 2 -o "$o/ops-$mode.json" >"$o/ops-$mode.log" 2>&1
  python3 "$b/cpu_server_ops.py" "$o/ops-$mode.json" 12 >"$o/ops-$mode.md" 2>&1
  env STAGEBENCH_CPU_GRID_PACK=$mode DNNL_VERBOSE=1 timeout -s INT -k 3 15 \
    "${new[@]}" run geneformer --size small --backend cpu --no-ceilings --stages onnx-graph \
    --max-time 1 --min-samples 2 --max-samples 2 -o "$o/verbose-$mode.json" 2>&1 |
    grep ',exec,' | grep matmul | awk -F, '{print $5, $7, $8, $9, $10, $11}' | sort | uniq -c |
    sort -rn >"$o/dnnl-verbose-$mode.txt"
done
for f in "$o"/ab-*.json; do "${new[@]}" report "$f" >"${f%.json}-report.txt" 2>&1; done
gzip -f "$o"/*.log
tar -czf "$out/cpu-server.tar.gz" -C "$out" cpu-server
rm -rf "$o"
echo "[$((SECONDS - start)) s] done"
