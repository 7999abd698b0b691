#!/usr/bin/env bash
# gfamx38's second call: the oneDNN attention's forms against the fp32 streaming kernel, in the
# same binary (keys padded to 32), Geneformer small engine-fp16 alone, alternating rounds
# (cpu-server.sh's AB_VARIANTS), then one op-times run of each form.
# `bash build-gfamx38/call2.sh` from the repository root on the device.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
start=$SECONDS
AB_VARIANTS="off STAGEBENCH_CPU_ATTENTION_ONEDNN=off; items STAGEBENCH_CPU_ATTENTION_ONEDNN=items; batched STAGEBENCH_CPU_ATTENTION_ONEDNN=batched" \
  AB_MODEL=geneformer AB_STAGES="engine-fp16" AB_ROUNDS=2 AB_TIME=3 \
  MODELS=" " PEER=0 NOISE=0 \
  BUNDLE="$here/cpu-server.tar.xz" bash scripts/cpu-server.sh run "$out"
o=$out/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
for mode in items batched off; do
  echo "[$((SECONDS - start)) s] ops $mode" >>"$o/session.txt"
  env STAGEBENCH_CPU_ATTENTION_ONEDNN=$mode STAGEBENCH_CPU_OP_TIMES=1 timeout -s INT -k 3 12 \
    "${new[@]}" run geneformer --size small --backend cpu --no-ceilings --stages engine-fp16 \
    --max-time 2 -o "$o/ops-$mode.json" >"$o/ops-$mode.log" 2>&1
  python3 "$b/cpu_server_ops.py" "$o/ops-$mode.json" 12 >"$o/ops-$mode.md" 2>&1
done
for f in "$o"/ab-*.json; do "${new[@]}" report "$f" >"${f%.json}-report.txt" 2>&1; done
gzip -f "$o"/*.log
tar -czf "$out/cpu-server.tar.gz" -C "$out" cpu-server
rm -rf "$o"
echo "[$((SECONDS - start)) s] done"
