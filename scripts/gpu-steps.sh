# The steps of scripts/gpu.sh, sourced by it after its preamble (they use its run, sb, log, left,
# sbgpu, models_for and variables: o, size, stagebench, bundle, ref, gpus, ceiling_args, dry).
# Each step_NAME is what `scripts/gpu.sh NAME` runs; docs/scripts.md lists their switches.
# shellcheck disable=SC2154  # the driver's variables

step_ceilings() {  # cuBLAS's GEMM ceilings, so that tensor-core stages get a roofline fraction
  needs_cuda "cuBLAS's ceilings" || return 0
  CUDA_VISIBLE_DEVICES=0 run 120 python3 "$ref/gemm_ceilings.py" > "$o/ceilings-out.txt" 2> "$o/ceilings.txt"
  [ "$dry" = 0 ] || return 0
  mapfile -t ceiling_args < <(sbgpu ceiling-args "$o/ceilings-out.txt" 2>> "$o/ceilings.txt")
  log "cuBLAS ceilings (GFLOP/s): $(tail -n1 "$o/ceilings-out.txt")"
}

step_tests() {  # ops_test on this device, once per TEST_VARIANTS entry
  local filter="${TESTS-OpsOpenCL.*:OpsOpenCLClblast.*}" v name rc envs
  [ -n "$filter" ] || { log "tests: TESTS is empty, none run"; return 0; }
  [ -x "$bundle/ops_test" ] || { log "tests skipped: no $bundle/ops_test"; return 0; }
  for v in ${TEST_VARIANTS:-default}; do
    name="${v%%:*}"
    mapfile -t envs < <(variables_of "$v")
    run 200 env "${envs[@]}" "$bundle/ops_test" --gtest_filter="$filter" > "$o/ops_test-$name.txt" 2>&1
    rc=$?
    log "ops_test $name (${envs[*]:-no variables}) rc=$rc $(grep -E '^\[  (PASSED|FAILED)' "$o/ops_test-$name.txt" | tr '\n' ' ')"
  done
}

timeline_stages() {  # $1: model; the stages a timeline times unless STAGES says
  case "$1" in
    dynunet) echo "${STAGES:-bf16-mixed,channels-last,compile}" ;;
    geneformer) echo "${STAGES:-engine-fp16}" ;;
    *) echo "${STAGES:-}" ;;
  esac
}

step_timeline() {  # one --timeline sample per VARIANTS entry, summed per kernel
  local model stages variants v name rc f prefix="" envs targs
  read -ra targs <<< "${RUN_ARGS:---max-time 10 --max-samples 10 --warmup 2}"
  [ "$(models_for timeline | wc -w)" -le 1 ] || prefix=1
  for model in $(models_for timeline); do
    stages="$(timeline_stages "$model")"
    [ -n "$stages" ] || { log "timeline $model skipped: STAGES names the stages to time"; continue; }
    variants="${VARIANTS:-}"
    if [ -z "$variants" ] && [ "$model" = dynunet ]; then
      for v in ${PRECISIONS:-bf16 tf32}; do variants+=" $v:STAGEBENCH_DYNUNET_REDUCED=$v"; done
    fi
    for v in ${variants:-default}; do
      name="${v%%:*}"
      mapfile -t envs < <(variables_of "$v")
      f="$o/timeline-${prefix:+$model-}$name"
      run 150 env "${envs[@]}" "$stagebench" run "$model" --size "$size" --backend opencl \
        --stages "$stages" "${targs[@]}" -q -o "$f.json" --timeline "$f.trace.json" > "$f.txt" 2>&1
      rc=$?
      log "timeline ${prefix:+$model }$name (${envs[*]:-no variables}) rc=$rc"
      [ -s "$f.trace.json" ] || continue
      sbgpu kernels "$f.trace.json" 30 > "$f-kernels.txt" 2>&1 && gzip -f "$f.trace.json"
      log "$(head -n1 "$f-kernels.txt")"
    done
  done
}

ladder_budget() {  # $1: model; "ladder-seconds peer-seconds max-time extra-arguments..."
  case "$1" in
    enformer) echo "240 230 30" ;;
    # DeepFM's stages take ~5 ms: at 100 samples its stage 0 stopped at 1.2% noise and every
    # verdict was withheld (results/h200/ladders-2026-11-27/deepfm-full-opencl.json).
    deepfm) echo "200 200 30 --max-samples 400" ;;
    # DynUNet's peer: 220 s cut compile-cudagraphs in results/h200/gpu27b-2026-11-28 (its order
    # is strongest first now, dynunet_torch.py's PEER_ORDER); 240 leaves the training menu 144.
    dynunet) echo "270 240 50 --max-samples 200" ;;
    *) echo "200 200 30" ;;
  esac
}

# ladder_run MODEL FILE SECONDS MAX_TIME VARIANT EXTRA...: one ladder into FILE.json.
ladder_run() {
  local model=$1 f=$2 secs=$3 mt=$4 v=$5 rc envs largs stages=()
  shift 5
  mapfile -t envs < <(variables_of "$v")
  read -ra largs <<< "${LADDER_ARGS:-}"
  [ -z "${LADDER_STAGES:-}" ] || stages=(--stages "$LADDER_STAGES")
  run "$secs" env "${envs[@]}" "$stagebench" run "$model" --size "$size" --backend opencl \
    --repeat "${REPEAT:-2}" --max-time "$mt" -q "${ceiling_args[@]}" "$@" "${largs[@]}" \
    "${stages[@]}" -o "$f.json" > "$f.log" 2>&1
  rc=$?
  log "$(basename "$f") (${envs[*]:-no variables}) rc=$rc"
  [ -s "$f.json" ] || return 0
  log "$(sbgpu ladder "$f.json" 2>&1)"
  local k
  for k in ${LOG_KEYS:-}; do log "$k: $(sbgpu values "$f.json" "$k" 2>&1 | tr '\n' ' ' | head -c 400)"; done
}

ladder_peer() {  # MODEL FILE PEER_SECONDS: PyTorch's variants into FILE.json, same call
  local budget=$(($(left) - 100))  # a variant started before the deadline may run past it
  [ "$budget" -le "$3" ] || budget=$3
  [ "${PEER:-1}" != 0 ] && [ -s "$2.json" ] || return 0
  needs_cuda "$1 peer" || return 0
  if [ "$budget" -lt 60 ]; then log "$1 peer not run: ${budget}s left for it"; return 0; fi
  run $((budget + 20)) "$stagebench" peer "$1" --size "$size" -o "$2.json" --deadline "$budget" \
    --variant-budget 90 --autotune-budget 80 >> "$2.log" 2>&1
  log "$1 peer rc=$? (deadline ${budget}s)"
}

# lane INDEX MODEL: every round of LADDER_VARIANTS for MODEL (even rounds in reverse order,
# so that drift favours no variant), the peer after round 1's PEER_VARIANT, then the reports.
lane() {
  local i=$1 model=$2 d ladder_s peer_s mt variants round v name f files=() tag
  read -ra d <<< "$(ladder_budget "$model")"
  ladder_s=${d[0]} peer_s=${d[1]} mt=${MAX_TIME:-${d[2]}}
  read -ra variants <<< "${LADDER_VARIANTS:-opencl}"
  for round in $(seq 1 "${LADDER_ROUNDS:-1}"); do
    tag=""
    [ "$round" = 1 ] || tag="-$round"
    if [ $((round % 2)) = 0 ]; then
      local r=() k; for ((k = ${#variants[@]} - 1; k >= 0; k--)); do r+=("${variants[k]}"); done
      variants=("${r[@]}")
    fi
    for v in "${variants[@]}"; do
      name="${v%%:*}"
      f="$o/$model-$size$tag-$name"
      ladder_run "$model" "$f" "$ladder_s" "$mt" "$v" "${d[@]:3}"
      files+=("$f")
    done
    [ "$round" = 1 ] && ladder_peer "$model" "$o/$model-$size-${PEER_VARIANT:-${variants[0]%%:*}}" "$peer_s"
  done
  for f in "${files[@]}"; do
    [ -s "$f.json" ] && "$stagebench" report "$f.json" > "$f.md" 2>> "$f.log"
  done
}

step_ladder() {  # the ladders, a lane a model: in parallel (a GPU and a slice of cores each) or not
  local models i=0 m per
  read -ra models <<< "$(models_for ladder)"
  per=$(($(nproc) / ${#models[@]})); [ "$per" -ge 1 ] || per=1
  if [ "${LANES_PARALLEL:-1}" = 0 ] || [ ${#models[@]} = 1 ]; then
    for m in "${models[@]}"; do lane $i "$m"; i=$((i + 1)); done
    return 0
  fi
  [ "$gpus" -ge ${#models[@]} ] || log "only $gpus GPU(s) for ${#models[@]} lanes: they share them"
  for m in "${models[@]}"; do
    (
      export CUDA_VISIBLE_DEVICES=$((i % gpus)) OMP_NUM_THREADS=$per
      taskset -pc "$((i * per))-$((i * per + per - 1))" $BASHPID > /dev/null 2>&1
      log "lane $i: $m on GPU $CUDA_VISIBLE_DEVICES, cores $((i * per))-$((i * per + per - 1))"
      lane $i "$m"
    ) &
    i=$((i + 1))
  done
  while [ -n "$(jobs -rp)" ] && [ "$(left)" -gt 10 ]; do sleep 1; done
  [ -z "$(jobs -rp)" ] || log "$(jobs -rp | wc -l) lane(s) still running at the deadline"
}

step_gemm() {  # the gemm benchmark at GEMM_SIZES, a process per LADDER_VARIANTS entry
  local shape v name envs rc
  for shape in ${GEMM_SIZES:-8192x8192x8192 4096x4096x4096 65536x768x256 1536x1536x7680}; do
    for v in ${LADDER_VARIANTS:-opencl}; do
      name="${v%%:*}"
      mapfile -t envs < <(variables_of "$v")
      run 60 env "${envs[@]}" "$stagebench" run gemm --size "$shape" --stages "${GEMM_STAGES:-fp16}" \
        --max-time 5 --backend opencl -q "${ceiling_args[@]}" -o "$o/gemm-$shape-$name.json" \
        > "$o/gemm-$shape-$name.txt" 2>&1
      rc=$?
      log "gemm-$shape-$name rc=$rc $(sbgpu values "$o/gemm-$shape-$name.json" gemm_paths 2>/dev/null | head -c 300)"
    done
  done
}

step_probe() {
  sb 120 probe --json "$o/probe.json" > "$o/probe.txt" 2>&1
  log "probe rc=$?"
}

# shellcheck source=scripts/gpu-steps-reference.sh
. "$here/gpu-steps-reference.sh"
