#!/usr/bin/env bash
# gf29's device call (issue 27), run from the checkout's root with the bundle, this script and
# the reference scripts carried in B (default build-gf29): `BUDGET=S bash B/call.sh "$OUT"`.
# In order, each step capped so that the whole ends within BUDGET seconds:
#  1. gpu.sh tests: the NVIDIA op tests of what gf29 touched (ptxas's figures in the log)
#  2. Geneformer full engine-fp16,engine-int8 (stage 0 runs as their baseline): "new" (the
#     defaults) with --timeline and the ladder's figures; "old" (OLD_ENV: the kernels before
#     gf29) shorter, for its timeline; each timeline summed per kernel
#  3. PyTorch's strongest Geneformer variant timed and profiled per kernel (torch_kernels.py)
#  4. `stagebench peer geneformer` into the "new" result
#  5. Enformer full bf16,int8-weights the same way (new, old), PyTorch's compile-bf16 profiled,
#     then the peer with what time is left
# Everything lands in OUT/gf29/ and one OUT/gf29.tar.gz.
set -uo pipefail
B=${B:-build-gf29}
out=${1:?OUT}
o="$out/gf29"
mkdir -p "$o"
budget=${BUDGET:-360}
size=${SIZE:-full}  # tiny with GPU_BACKEND=opencl: the plumbing on PoCL
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
log() { echo "$(date -u +%T) [$(($(date +%s) - start))s] $*" | tee -a "$o/call.txt"; }
capped() {  # SECONDS CMD...: CMD within SECONDS and what is left (less 15 s for the tar)
  local s=$1 l
  shift
  l=$(($(left) - 15))
  [ "$s" -le "$l" ] || s=$l
  if [ "$s" -lt 5 ]; then log "skipped (${l}s left): $*"; return 124; fi
  timeout -s INT -k 5 "$s" "$@"
}
export PYTHONUNBUFFERED=1
sb="$B/.gpu/stagebench"
ref="$B/reference"
if [ "${GPU_BACKEND:-nvidia}" = nvidia ]; then
  . "$B/.gpu/nvidia-opencl-env.sh"
  nvidia_opencl_env "$B/.gpu/lib"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
fi
log "start; bundle: $(tr '\n' ' ' < "$B/.gpu/BUILD_INFO" 2>/dev/null)"
OLD_ENV=${OLD_ENV:-STAGEBENCH_ROW_KERNELS=lanes STAGEBENCH_ATTENTION_TRIM=off STAGEBENCH_ENFORMER_STEM=k15}
kernels() { PYTHONPATH="$B/.gpu" python3 -m sbgpu kernels "$1.trace.json" 30 > "$1-kernels.txt" 2>&1 &&
  gzip -f "$1.trace.json"; log "$(basename "$1"): $(grep '^##' "$1-kernels.txt" | tr '\n' ' ')"; }
# model stages name max-time seconds [env...]: one run, its first sample's timeline per kernel
run_model() {
  local m=$1 st=$2 f="$o/$1-$size-$3" mt=$4 secs=$5
  shift 5
  capped "$secs" env "$@" "$sb" run "$m" --size "$size" --backend opencl --stages "$st" \
    --max-time "$mt" -q -o "$f.json" --timeline "$f.trace.json" > "$f.log" 2>&1
  log "$m $(basename "$f") ($*) rc=$?"
  [ -s "$f.trace.json" ] && kernels "$f"
  [ -s "$f.json" ] && "$sb" report "$f.json" > "$f.md" 2>> "$f.log"
}

# 1. tests
t='Backends/OpTable.MatchesTheReference/opencl_'
TESTS="OpsOpenCL.Attention*:${t}layernorm:${t}add_layernorm:${t}masked_mean:${t}attention_fused:${t}linear:${t}im2col" \
  TEST_VARIANTS="default:STAGEBENCH_CL_BUILD_LOG=1" \
  capped 110 bash "$B/.gpu/gpu.sh" tests --bundle "$B/.gpu" --limit 100 --dir tests "$o"
log "tests rc=$? $(grep -h 'ops_test' "$o/tests/session.txt" | tail -n1 | cut -c1-160)"

# 2-4. Geneformer
run_model geneformer engine-fp16,engine-int8 new 3 45
run_model geneformer engine-fp16,engine-int8 old 1 30 $OLD_ENV
capped 75 python3 "$ref/torch_kernels.py" torch --model geneformer --size "$size" \
  --json "$o/torch-geneformer.json" > "$o/torch-geneformer.txt" 2>&1
log "torch geneformer rc=$? $(head -n1 "$o/torch-geneformer.txt" | cut -c1-220)"
gf="$o/geneformer-$size-new"
d=$(($(left) - 190))  # leave Enformer its runs and profile
[ "$d" -le 55 ] || d=55
if [ "$d" -ge 30 ] && [ -s "$gf.json" ]; then
  capped $((d + 15)) "$sb" peer geneformer --size "$size" --scripts "$ref" -o "$gf.json" \
    --deadline "$d" --variant-budget 35 > "$o/geneformer-peer.log" 2>&1
  log "geneformer peer rc=$? (deadline ${d}s)"
  "$sb" report "$gf.json" > "$gf.md" 2>> "$gf.log"
else
  log "geneformer peer not run: ${d}s"
fi

# 5. Enformer
run_model enformer bf16,int8-weights new 3 50
run_model enformer bf16,int8-weights old 1 35 $OLD_ENV
capped 100 python3 "$ref/torch_kernels.py" torch --model enformer --size "$size" \
  --json "$o/torch-enformer.json" > "$o/torch-enformer.txt" 2>&1
log "torch enformer rc=$? $(head -n1 "$o/torch-enformer.txt" | cut -c1-220)"
ef="$o/enformer-$size-new"
d=$(($(left) - 25))
if [ "$d" -ge 40 ] && [ -s "$ef.json" ]; then
  capped $((d + 10)) "$sb" peer enformer --size "$size" --scripts "$ref" -o "$ef.json" \
    --deadline "$d" --variant-budget 50 > "$o/enformer-peer.log" 2>&1
  log "enformer peer rc=$? (deadline ${d}s)"
  "$sb" report "$ef.json" > "$ef.md" 2>> "$ef.log"
else
  log "enformer peer not run: ${d}s"
fi

python3 "$ref/torch_kernels.py" ours "$o"/*-kernels.txt > "$o/ours-by-role.txt" 2>&1
rm -f "$o"/*/*.tar.gz "$o"/*.tar.gz
log "done"
tar czf "$out/gf29.tar.gz" -C "$out" gf29
