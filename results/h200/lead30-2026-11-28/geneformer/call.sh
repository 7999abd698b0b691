#!/usr/bin/env bash
# NOT RUN (gf29's device time was spent): the Geneformer half of call.sh that its call lost,
# with the first run's cap raised. In call.sh the first Geneformer process (new kernels) met the
# NVIDIA driver's cold program builds and its 45 s cap interrupted it before any sample
# (geneformer-full-new.log); the later "old" process found the builds cached. Here "new" gets
# 110 s, then "old", then PyTorch's peer into the "new" result: about 210 s plus the machine's
# start. From the checkout's root with B (default build-gf29) carried as for call.sh:
#   BUDGET=230 bash B/verify.sh "$OUT"   ->  OUT/gf29v.tar.gz
set -uo pipefail
B=${B:-build-gf29}
out=${1:?OUT}
o="$out/gf29v"
mkdir -p "$o"
budget=${BUDGET:-230}
size=${SIZE:-full}
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
log() { echo "$(date -u +%T) [$(($(date +%s) - start))s] $*" | tee -a "$o/call.txt"; }
sb="$B/.gpu/stagebench"
if [ "${GPU_BACKEND:-nvidia}" = nvidia ]; then
  . "$B/.gpu/nvidia-opencl-env.sh"
  nvidia_opencl_env "$B/.gpu/lib"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
fi
log "start; bundle: $(tr '\n' ' ' < "$B/.gpu/BUILD_INFO" 2>/dev/null)"
one() {  # name max-time cap env...
  local f="$o/geneformer-$size-$1" mt=$2 cap=$3
  shift 3
  timeout -s INT -k 5 "$cap" env "$@" "$sb" run geneformer --size "$size" --backend opencl \
    --stages engine-fp16,engine-int8 --max-time "$mt" -q -o "$f.json" --timeline "$f.trace.json" \
    > "$f.log" 2>&1
  log "$(basename "$f") ($*) rc=$?"
  [ -s "$f.trace.json" ] && PYTHONPATH="$B/.gpu" python3 -m sbgpu kernels "$f.trace.json" 30 \
    > "$f-kernels.txt" 2>&1 && gzip -f "$f.trace.json"
}
one new 3 110
one old 2 40 STAGEBENCH_ROW_KERNELS=lanes STAGEBENCH_ATTENTION_TRIM=off
one trim-off 2 35 STAGEBENCH_ATTENTION_TRIM=off
d=$(($(left) - 25))
[ "$d" -le 55 ] || d=55
if [ "$d" -ge 30 ] && [ -s "$o/geneformer-$size-new.json" ]; then
  timeout -k 5 $((d + 15)) "$sb" peer geneformer --size "$size" --scripts scripts/reference \
    -o "$o/geneformer-$size-new.json" --deadline "$d" --variant-budget 35 > "$o/peer.log" 2>&1
  log "peer rc=$? (deadline ${d}s)"
fi
for f in "$o"/geneformer-*.json; do "$sb" report "$f" > "${f%.json}.md" 2>/dev/null; done
log "done"
tar czf "$out/gf29v.tar.gz" -C "$out" gf29v
