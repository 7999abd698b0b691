#!/usr/bin/env bash
# mma39 call 3: the default (wgmma) 8192^3 fp16 stage with call 2's bundle (call 2's run of it
# ran out of its cap while the wgmma programs built). BUDGET=45 bash build-mma39/call3.sh "$OUT"
set -u
OUT=${1:?out}
N=build-mma39/.gpu
O=$OUT/mma39
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-45}
timeout -s INT $((BUDGET - 4)) $N/gpu-run.sh run gemm --size 8192x8192x8192 --backend opencl \
  --stages fp16 --max-time 3 -q -o "$O/gemm-wgmma.json" --timeline "$O/gemm-wgmma.trace.json" \
  > "$O/gemm-wgmma.log" 2>&1
echo "gemm wgmma rc=$? after $(($(date +%s) - t0)) s" | tee "$O/call.log"
PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-wgmma.trace.json" 8 > "$O/gemm-wgmma-kernels.txt" 2>&1
rm -f "$O/gemm-wgmma.trace.json"; sed -n '/## fp16/,$p' "$O/gemm-wgmma-kernels.txt" | head -4
$N/gpu-run.sh report "$O/gemm-wgmma.json" > "$O/gemm-wgmma.md" 2>> "$O/call.log"
grep -E "^\| [0-9a-z]" "$O/gemm-wgmma.md" | cut -c1-140 | head -4
gzip -f "$O"/*.json 2>/dev/null
tar czf "$OUT/mma39.tar.gz" -C "$OUT" mma39
