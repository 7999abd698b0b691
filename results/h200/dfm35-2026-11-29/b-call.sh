#!/usr/bin/env bash
# dfm35's second command (the machine still warm from call.sh, whose ladders had timed out on
# cold program builds): baseline, amp and autotune with the three changes on (the defaults), then
# off, 2 s a stage. As sent (one line in the run), here wrapped.
N=build-dfm35/.gpu; O=$OUT/b; mkdir -p $O
for r in on off; do
  e="X=1"
  [ $r = off ] && e="STAGEBENCH_THIN_GEMM=mma STAGEBENCH_DFM_FUSED_DROPOUT=off STAGEBENCH_F16_ACTIVATIONS=off"
  env $e timeout -s INT 17 $N/gpu-run.sh run deepfm --size full --backend opencl --max-time 2 \
    --max-samples 400 --stages baseline,amp,autotune -o $O/deepfm-full-b-$r.json > $O/run-b-$r.log 2>&1
  echo "$r rc=$?"
  $N/gpu-run.sh report $O/deepfm-full-b-$r.json > $O/deepfm-full-b-$r.md 2>/dev/null
  grep -E "^\| [0-9]" $O/deepfm-full-b-$r.md | cut -c1-120
done
tar czf $OUT/b.tar.gz -C $OUT b; rm -rf $O
