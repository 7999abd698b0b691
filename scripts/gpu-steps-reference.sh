# The steps of scripts/gpu.sh that need PyTorch on CUDA or a tool of their own (sourced by
# scripts/gpu-steps.sh): the reference checks, PyTorch's own timings, users' checkpoints, CLBlast's
# tuning and the conv3d implicit-GEMM probe.
# shellcheck disable=SC2154  # the driver's variables

reference_enformer() {  # our outputs against enformer_torch.py on the same weights and input
  local s bp
  for s in tiny small; do
    bp=$([ "$s" = tiny ] && echo 4096 || echo 32768)
    run 120 python3 -c "import numpy as n; n.save('$tmp/x_$s.npy', n.random.default_rng(1).integers(0, 4, (1, $bp)))"
    sb 200 infer enformer --backend opencl --input "$tmp/x_$s.npy" --output "$tmp/ours_$s.safetensors" \
      --export-weights "$tmp/w_$s.safetensors" --stage original >> "$o/reference.log" 2>&1
    echo "== $s: stagebench (opencl, original) vs PyTorch reference" >> "$o/reference.txt"
    run 200 python3 "$ref/enformer_torch.py" --size "$s" --weights "$tmp/w_$s.safetensors" \
      --input "$tmp/x_$s.npy" --check "$tmp/ours_$s.safetensors" >> "$o/reference.txt" 2>&1
  done
}

reference_geneformer() {  # 2 cells x 512 tokens, one padded, against geneformer_torch.py
  run 120 python3 -c "
import numpy as n
r = n.random.default_rng(1)
ids = n.stack([r.permutation(n.arange(2, 25426))[:512] for _ in range(2)])
ids[1, 300:] = 0
n.save('$tmp/gf_ids.npy', ids)"
  sb 200 infer geneformer --backend opencl --input "$tmp/gf_ids.npy" --output "$tmp/gf_ours.safetensors" \
    --export-weights "$tmp/gf_w.safetensors" --stage eager >> "$o/reference.log" 2>&1
  echo "== stagebench (opencl, eager) vs PyTorch reference, 2 cells x 512 tokens" >> "$o/reference.txt"
  run 200 python3 "$ref/geneformer_torch.py" --weights "$tmp/gf_w.safetensors" --ids "$tmp/gf_ids.npy" \
    --check "$tmp/gf_ours.safetensors" >> "$o/reference.txt" 2>&1
}

reference_deepfm() {  # 8 training steps without dropout against deepfm_torch.py
  local s
  for s in tiny small; do
    sb 200 export-steps deepfm --size "$s" --backend opencl --steps 8 --no-dropout --out "$tmp/dfm_$s" \
      >> "$o/reference.txt" 2>&1
    run 200 python3 "$ref/deepfm_torch.py" check --dir "$tmp/dfm_$s" --device cuda \
      --json "$o/deepfm-check-$s.json" > /dev/null 2>> "$o/reference.log"
    sbgpu deepfm-check "$o/deepfm-check-$s.json" "$s" >> "$o/reference.txt" 2>&1
  done
}

reference_dynunet() {  # the selftest, then training steps; the verdict is PyTorch float64's on the CPU
  local s
  run 200 python3 "$ref/dynunet_torch.py" selftest --json "$o/dynunet-selftest.json" > /dev/null 2>&1
  sbgpu dynunet-selftest "$o/dynunet-selftest.json" >> "$o/reference.txt" 2>&1
  for s in tiny small; do
    sb 200 export-steps dynunet --size "$s" --backend opencl --stage baseline --steps "${STEPS:-4}" \
      --out "$tmp/dyn_$s" >> "$o/reference.txt" 2>&1
    run 300 python3 "$ref/dynunet_torch.py" check --dir "$tmp/dyn_$s" --device cuda --float64 \
      --json "$o/dynunet-check-$s.json" > /dev/null 2>> "$o/reference.log"
    sbgpu dynunet-check "$o/dynunet-check-$s.json" "$s" >> "$o/reference.txt" 2>&1
  done
}

step_reference() {
  needs_cuda "the reference checks" || return 0
  local model tmp
  tmp="$(mktemp -d)"
  for model in $(models_for reference); do
    declare -F "reference_$model" > /dev/null || { log "reference: none for $model"; continue; }
    "reference_$model"
    log "reference $model: $(grep -cE 'pass True|PASS' "$o/reference.txt") passing line(s) so far in reference.txt"
  done
  rm -rf "$tmp"
}

step_torch() {  # PyTorch's own timings at SIZE, beside the ladders of the same call
  needs_cuda "PyTorch's timings" || return 0
  local model f
  for model in $(models_for torch); do
    f="$o/$model-$size-pytorch"
    case "$model" in
      enformer) run 200 python3 "$ref/enformer_torch.py" --size "$size" --time > "$f.txt" 2>&1 ;;
      geneformer) run 200 python3 "$ref/geneformer_torch.py" --time --batch "${BATCH:-32}" > "$f.txt" 2>&1 ;;
      deepfm|dynunet)
        run 300 python3 "$ref/${model}_torch.py" ladder --size "$size" --budget-s "${TORCH_BUDGET:-60}" \
          --json "$f.json" > "$f.txt" 2>&1 ;;
      *) log "torch: no timing for $model"; continue ;;
    esac
    log "$model PyTorch timing rc=$?"
  done
}

step_checkpoints() {  # users' own checkpoints: shapes no named size has, on both backends
  needs_cuda "the checkpoints" || return 0
  local tmp log="$o/checkpoints.txt" ck="$ref/checkpoints_torch.py" b stage m
  tmp="$(mktemp -d)"
  run 120 python3 "$ck" versions >> "$log" 2>&1
  run 120 python3 -c "import numpy as n; n.save('$tmp/x16k.npy', n.random.default_rng(1).integers(0, 4, (1, 16384)))"
  run 120 python3 "$ref/enformer_torch.py" --make-weights "$tmp/enf.safetensors" --dim 120 --depth 2 --heads 5 \
    --dk 32 --filters 60,72,84,96,108,120 --human 40 --mouse 24 >> "$log" 2>&1
  for b in opencl cpu; do
    for stage in original graph-compile; do
      echo "== enformer dim 120 / 5 heads / 5 tower blocks, 16,384 bp: stagebench $b $stage vs reference" >> "$log"
      sb 200 infer enformer --backend "$b" --stage "$stage" --weights "$tmp/enf.safetensors" \
        --input "$tmp/x16k.npy" --output "$tmp/enf_$b.safetensors" >> "$log" 2>&1
      run 120 python3 "$ref/enformer_torch.py" --weights "$tmp/enf.safetensors" --input "$tmp/x16k.npy" \
        --check "$tmp/enf_$b.safetensors" >> "$log" 2>&1
    done
  done
  if python3 -c "import enformer_pytorch" 2>/dev/null; then
    run 120 python3 "$ck" enformer-pytorch "$tmp/x16k.npy" "$tmp/ep" "$tmp/ep_out.safetensors" >> "$log" 2>&1
    sb 200 infer enformer --backend opencl --weights "$tmp/ep" --input "$tmp/x16k.npy" \
      --output "$tmp/ep_ours.safetensors" >> "$log" 2>&1
    run 120 python3 "$ck" compare "$tmp/ep_ours.safetensors" "$tmp/ep_out.safetensors" >> "$log" 2>&1
  fi
  run 120 python3 "$ck" bert "$tmp/bert96" "$tmp/bert_ids.npy" relu >> "$log" 2>&1
  run 120 python3 "$ck" bert "$tmp/bert96gelu" "$tmp/bert_ids.npy" gelu >> "$log" 2>&1
  for m in bert96 bert96gelu; do
    for b in opencl cpu; do
      echo "== $m: 3 x 96 / 3 heads / vocabulary 500, 77 tokens: stagebench $b vs transformers" >> "$log"
      sb 200 infer geneformer --backend "$b" --weights "$tmp/$m" --input "$tmp/bert_ids.npy" \
        --output "$tmp/${m}_$b.safetensors" >> "$log" 2>&1
      run 120 python3 "$ref/geneformer_torch.py" --weights "$tmp/$m" --ids "$tmp/bert_ids.npy" \
        --check "$tmp/${m}_$b.safetensors" >> "$log" 2>&1
    done
  done
  log "checkpoints: $(grep -c cosine "$log") cosine line(s) in checkpoints.txt"
  rm -rf "$tmp"
}

tune_stage0() {  # $1: label. Stage 0 of DynUNet full and Enformer full, each its own process
  sb 120 run dynunet --size full --backend opencl --stages baseline --max-time 25 --noise 0.02 -q \
    -o "$o/dynunet-full-baseline-$1.json" > /dev/null 2>> "$o/tune.txt"
  sb 120 run enformer --size full --backend opencl --stages original --max-time 20 --noise 0.02 -q \
    -o "$o/enformer-full-original-$1.json" > /dev/null 2>> "$o/tune.txt"
}

step_tune() {  # stage 0 with CLBlast's defaults, `stagebench tune`, stage 0 again tuned
  export STAGEBENCH_CACHE_DIR="$o/cache"
  STAGEBENCH_CLBLAST_TUNING=off tune_stage0 defaults
  sb 300 tune --fraction "${FRACTION:-0.01}" --size 2048 2>&1 | grep -vE "^ *\|" | tail -20 >> "$o/tune.txt"
  log "tune done"
  tune_stage0 tuned
  sbgpu stage "$o"/*-defaults.json "$o"/*-tuned.json 2>&1 | tee -a "$o/tune.txt" >> "$o/session.txt"
}

igemm() {  # NAME SECONDS ARGS...: conv3d_igemm_check (docs/wgmma.md) into NAME.tsv
  local name=$1 secs=$2 rc
  shift 2
  [ -x "$bundle/conv3d_igemm_check" ] || { log "$name skipped: no $bundle/conv3d_igemm_check"; return 0; }
  run "$secs" "$bundle/conv3d_igemm_check" "$@" > "$o/$name.tsv" 2> "$o/$name.err"
  rc=$?
  log "conv3d_igemm_check $* rc=$rc ($(tail -n1 "$o/$name.tsv"))"
}

step_igemm_shapes() {  # both conv3d paths on DynUNet full's shapes, then cuDNN on them
  local p
  for p in ${PRECISIONS:-tf32}; do igemm "shapes-ours-$p" 150 "$p" 20; done
  needs_cuda "cuDNN's shapes" || return 0
  run 150 python3 "$ref/conv3d_shapes.py" > "$o/shapes-cudnn.tsv" 2> "$o/shapes-cudnn.err"
  log "conv3d_shapes.py rc=$?"
}

step_igemm_tiles() {  # the measured tile height against each height forced
  local h
  for h in auto 128 256; do
    STAGEBENCH_CONV_IGEMM_TILE=$([ "$h" = auto ] || echo "$h") igemm "tiles-$h" 150 tf32 20
  done
}

step_igemm_bwd() {  # weight and data gradients, checked and timed, then cuDNN's
  igemm bwd-ours-tf32 200 bwd tf32 "${BWD_REPS:-5}"
  needs_cuda "cuDNN's backward passes" || return 0
  run 120 python3 "$ref/conv3d_shapes.py" --backward > "$o/bwd-cudnn.tsv" 2> "$o/bwd-cudnn.err"
  log "conv3d_shapes.py --backward rc=$?"
}
