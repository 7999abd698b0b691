#!/usr/bin/env bash
# lead30 call A: DynUNet's bf16 producers and phase store (dyn29, off by default) against the
# defaults, same call: the ladder (baseline, compile, dataloader) for each, PyTorch's peer
# (training and inference menus) into the "new" ladder, then one compile-stage timeline each.
set -u
B=build-h30/.gpu
on="STAGEBENCH_CONV_BF16_PRODUCERS=on,STAGEBENCH_CONV_PHASE_STORE=on"
off="STAGEBENCH_CONV_BF16_PRODUCERS=off,STAGEBENCH_CONV_PHASE_STORE=off"
LANES=dynunet MODEL=dynunet LADDER_VARIANTS="new:$on old:$off" PEER_VARIANT=new \
  LADDER_STAGES=baseline,compile,dataloader REPEAT=1 MAX_TIME=12 STAGES=compile \
  VARIANTS="new:$on old:$off" LOG_KEYS=gemm_calls LIMIT=575 BUNDLE=$B \
  bash scripts/gpu.sh --dir dyn ladder timeline "$OUT"
cat "$OUT/dyn/session.txt" 2>/dev/null | tail -30
for f in "$OUT"/dyn/dynunet-full-*.md; do echo "== $f"; grep -E "^\| [0-9]|PyTorch|vs our" "$f" | head -40; done
for v in new old; do head -25 "$OUT/dyn/timeline-$v-kernels.txt" 2>/dev/null; done
rm -rf "$OUT/dyn"; ls -la "$OUT"
