#!/usr/bin/env bash
# One device-machine session for DynUNet (run there from the repository root, .gpu/ carried): the
# port's training (baseline stage, 4 steps, tiny and small on NVIDIA OpenCL) checked against the
# PyTorch reference on the same initial parameters and batches (the verdict from PyTorch float64 on
# the CPU, PyTorch fp32 on the CPU and on CUDA beside it), PyTorch's own ladder at full size
# (training and inference), and the stagebench ladder at full size on NVIDIA OpenCL, in the same
# session. Everything lands in $1 (default: $OUT); about 8 minutes with the defaults below.
# Without .gpu/ (no bundle) only the PyTorch parts run.
set -uo pipefail
out="${1:-${OUT:?}}"
sb=".gpu/gpu-run.sh"
ref="scripts/reference/dynunet_torch.py"
log="$out/dynunet-reference.txt"
export PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
  python3 "$ref" selftest --json /tmp/dyn_selftest.json > /dev/null 2>&1
  python3 -c "
import json; s = json.load(open('/tmp/dyn_selftest.json'))
print('== selftest (CPU, tiny fixture): pass %s, names match params.cpp %s, loss vs float64 rel %.2g'
      % (s['pass'], s['names_match_params_cpp'], s['fixture']['loss_vs_float64_rel']))"
} 2>&1 | tee "$log"
if [ -x .gpu/stagebench ]; then
  for size in tiny small; do
    bash "$sb" export-steps dynunet --size "$size" --backend opencl --stage baseline --steps "${STEPS:-4}" \
      --out "/tmp/dyn_$size" 2>&1 | tee -a "$log"
    # the verdict is the CPU arbiter's (PyTorch float64 on the host's CPU); PyTorch fp32 on the
    # CPU and on CUDA (cuDNN, TF32 off) are reported beside it (docs/method.md)
    python3 "$ref" check --dir "/tmp/dyn_$size" --device cuda --float64 \
      --json "$out/dynunet-check-$size.json" > /dev/null 2>>"$log"
    python3 - "$out/dynunet-check-$size.json" "$size" <<'PY' 2>&1 | tee -a "$log"
import json, sys
c, size = json.load(open(sys.argv[1])), sys.argv[2]
print('== %s: stagebench (opencl, %s) against PyTorch, %d steps; verdict from %s: pass %s %s'
      % (size, c['config']['stage'], c['steps'], c['verdict_from'], c['pass'],
         '; '.join(c['failures'])))
for name, r in c['comparisons'].items():
    s = r['summary']
    print('   %-12s%s loss rel diff %.3g | parameters 1 - cosine %.3g, rel L2 %.3g | step-0 '
          'gradients 1 - cosine %.3g, rel L2 %.3g, worst tensor %.3g (%s) | within tolerances %s'
          % (name, ' (arbiter)' if name == c['verdict_from'] else ' (beside) ',
             s['max_rel_loss_diff'], 1 - s['param_cosine'], s['param_rel_l2'],
             1 - s['grad_cosine'], s['grad_rel_l2'], s['grad_max_tensor_rel_l2'],
             s['grad_max_rel_l2_tensor'], r['within_tolerances']))
y = c.get('torch_fp32_vs_float64')
if y:
    print('   PyTorch fp32 against its own float64 run: loss rel diff %.3g, parameters rel L2 %.3g, '
          'step-0 gradients rel L2 %.3g (worst tensor %.3g)' % (y['max_rel_loss_diff'],
          y['param_rel_l2'], y['grad_rel_l2'], y['grad_max_tensor_rel_l2']))
for r in c['comparisons'][c['verdict_from']]['loss']:
    print('   step %d  loss %.7f / %.7f  dice %.7f / %.7f  bce %.7f / %.7f' % (r['step'],
          r['stagebench'], r['torch'], r.get('dice_stagebench', float('nan')),
          r.get('dice_torch', float('nan')), r.get('bce_stagebench', float('nan')),
          r.get('bce_torch', float('nan'))))
PY
  done
else
  echo "no .gpu/stagebench: the traces, checks and the stagebench ladder are skipped" | tee -a "$log"
fi
echo "PyTorch ladder from $(( SECONDS ))s into the session" >> "$log"
python3 "$ref" ladder --size full --budget-s "${TORCH_BUDGET:-60}" \
  --json "$out/dynunet-full-pytorch.json" > /dev/null 2> "$out/dynunet-full-pytorch.txt"
if [ -x .gpu/stagebench ]; then
  # what is left of the command's limit (DEADLINE seconds from the start), less a margin
  left=$(( ${DEADLINE:-570} - SECONDS )); [ "$left" -lt 60 ] && left=60
  timeout -s INT "$left" bash "$sb" run dynunet --size full --backend opencl --max-time "${MAX_TIME:-150}" \
    --noise "${NOISE:-0.03}" --max-samples 500 -q -o "$out/dynunet-full-opencl.json" 2>&1 |
    tee "$out/dynunet-full-opencl.txt"
  echo "stagebench run: $(( SECONDS ))s into the session" >> "$log"
  # PyTorch's variants beside the ladder in the result itself (docs/method.md, "peer")
  left=$(( ${DEADLINE:-570} - SECONDS )); [ "$left" -lt 30 ] && left=30
  timeout -s INT "$left" bash "$sb" peer dynunet --size full -o "$out/dynunet-full-opencl.json" 2>&1 |
    tee "$out/dynunet-full-opencl-peer.txt"
fi
