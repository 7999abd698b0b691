# Third call: where the op layer's wgmma kernel loses to the probe's. Kernel variants through
# STAGEBENCH_CL_SOURCE_DIR (one binary): v0 as committed; v1 unchecked copies for tiles wholly
# inside (a uniform runtime branch); v2 fragments stored directly when there is no epilogue and
# the tile is whole; v3 both.
set -u
o="$OUT/call3"; mkdir -p "$o"; B=build-wgmma-gpu; sb="$B/gpu/gpu-run.sh"
log() { echo "$(date +%T) [${SECONDS}s] $*" | tee -a "$o/session.txt"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
run() {  # variant name args...
  local v=$1 name=$2; shift 2
  local dir=""; [ "$v" != v0 ] && dir="$PWD/$B/var/$v"
  STAGEBENCH_CL_SOURCE_DIR="$dir" timeout 90 bash "$sb" run "$@" --backend opencl -q \
    -o "$o/$name-$v-$SECONDS.json" > "$o/$name-$v-$SECONDS.txt" 2>&1
  log "$name $v rc=$? $(grep -o '"gemm_paths": "fp16: [a-z.]*' "$o"/$name-$v-*.json | tail -n1)"
}
for v in v0 v1 v2 v3 v0 v1; do run $v gemm-8192 gemm --size 8192x8192x8192 --stages fp16 --max-time 5; done
for v in v0 v1 v1 v0; do run $v gemm-qkv gemm --size 65536x768x256 --stages fp16 --max-time 5; done
for v in v0 v1 v1 v0; do run $v geneformer geneformer --size full --stages engine-fp16 --max-time 8; done
python3 - "$o" <<'PY'
import json, glob, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json"), key=os.path.getmtime):
    r = json.load(open(f))["runs"][0]
    for s in r["stages"]:
        if s.get("gemm_path"):
            k = [k for k in s["opencl"]["kernels"] if k["name"].startswith("wgmma")]
            print(os.path.basename(f), s["id"], s["status"], s["correctness"].get("pass"),
                  round(s["time"]["median_ms"], 4), [(x["name"], round(x["total_ns"] / x["launches"] / 1e6, 4)) for x in k])
PY
cd "$OUT" && tar czf call3.tar.gz call3
