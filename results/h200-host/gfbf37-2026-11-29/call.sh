#!/usr/bin/env bash
# gfbf37's call: Geneformer small's eager and engine-fp16 stages with gfcpu37's binary (old: the
# fp32 fused attention) and this branch's (new: bf16 products in the fused attention), paired
# noise, 6 s each, in one call; then, as time allows, PyTorch's compile-bf16-sdpa alone
# (85 s budget) merged into the new ladder's JSON. `bash build-gfbf37/call.sh` from the repository
# root on the device; LIMIT (s) is where the script stops itself.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
limit=${LIMIT:-150}
start=$SECONDS
stages="eager engine-fp16"
SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  OLD_SAMPLING="--max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise" \
  OLD_MODEL=geneformer OLD_STAGES_geneformer="$stages" OLD_MAX_TIME=6 OLD_LIMIT=25 \
  MODELS=" " PEER=0 NOISE=0 \
  BUNDLE="$here/cpu-server.tar.xz" bash scripts/cpu-server.sh run "$out"
o=$out/cpu-server
b=$(dirname "$(find /tmp/cpu-server-bundle -name cpu_server_ops.py | head -1)")
new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
echo "[$((SECONDS - start)) s] new ladder" >>"$o/session.txt"
timeout -s INT -k 5 25 "${new[@]}" run geneformer --size small --backend cpu --stages $stages \
  --no-ceilings --max-samples 400 --stable-checks 10 --warmup 1 --quality paired-noise --max-time 6 -o "$o/geneformer-small-new.json" \
  >"$o/geneformer-new.log" 2>&1
echo "[$((SECONDS - start)) s] new ladder: exit $?" >>"$o/session.txt"
left=$((limit - (SECONDS - start) - 8))
if ((left >= 70)); then
  budget=$((left - 10 < 85 ? left - 10 : 85))
  env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS="$(nproc)" timeout -s INT -k 5 "$left" \
    "${new[@]}" peer geneformer --size small --device cpu \
    --python /tmp/cpu-server-bundle/python-bound --scripts "$b/reference" --runs 20 \
    -o "$o/geneformer-small-new.json" --variants compile-bf16-sdpa --variant-budget "$budget" \
    --deadline "$((budget + 1))" >"$o/geneformer-peer.log" 2>&1
  echo "[$((SECONDS - start)) s] peer (budget $budget s): exit $?" >>"$o/session.txt"
else
  echo "[$((SECONDS - start)) s] peer skipped: $left s left" >>"$o/session.txt"
fi
for f in old new; do
  "${new[@]}" report "$o/geneformer-small-$f.json" >"$o/geneformer-report-$f.txt" 2>&1
done
gzip -f "$o"/*.log
tar -czf "$out/cpu-server.tar.gz" -C "$out" cpu-server
rm -rf "$o"
echo "[$((SECONDS - start)) s] done"
