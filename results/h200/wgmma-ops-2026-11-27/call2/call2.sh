# Second call: the probe (built through the op layer's wgmma_program) beside the op layer's kernel,
# the 8192^3 pair again, and Enformer on + PyTorch's peer with a longer deadline.
set -u
o="$OUT/call2"; mkdir -p "$o/probe"; B=build-wgmma-gpu; sb="$B/gpu/gpu-run.sh"
icd=$(mktemp -d); lib=/usr/lib/libnvidia-opencl.so
[ -e "$lib" ] || lib="$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* | head -n1)"
echo "$lib" > "$icd/nvidia.icd"
log() { echo "$(date +%T) [${SECONDS}s] $*" | tee -a "$o/session.txt"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
cp "$B/probe/BUILD_INFO" "$o/probe-BUILD_INFO"
OCL_ICD_VENDORS="$icd" LD_LIBRARY_PATH="$B/probe/lib" timeout 200 "$B/probe/wgmma_probe" \
  --kernels "$B/probe/kernels" --mma-kernels "$B/probe/mma-kernels" --out "$o/probe" \
  --phase gemm --sizes 4096,8192 --rounds 15 > "$o/probe-gemm.txt" 2>&1
log "probe gemm rc=$?"
for m in off on on off; do
  STAGEBENCH_WGMMA=$m timeout 60 bash "$sb" run gemm --size 8192x8192x8192 --stages fp16 \
    --max-time 5 --backend opencl -q -o "$o/gemm-8192-$m-$SECONDS.json" > "$o/gemm-8192-$m-$SECONDS.txt" 2>&1
  log "gemm 8192 $m rc=$?"
done
timeout 100 bash "$sb" run enformer --size full --max-time 15 --backend opencl -q \
  -o "$o/enformer-full-on.json" > "$o/enformer-full-on.txt" 2>&1
log "enformer on rc=$?"
timeout 330 bash "$sb" peer enformer --size full -o "$o/enformer-full-on.json" --deadline 300 \
  > "$o/enformer-full-peer.txt" 2>&1
log "enformer peer rc=$?"
grep -E "^time|^check" "$o/probe-gemm.txt"
cd "$OUT" && tar czf call2.tar.gz --exclude='*.ptx' call2
