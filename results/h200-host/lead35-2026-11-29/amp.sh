#!/usr/bin/env bash
# lead35's host probe: DeepFM small's amp stage after an fp32 stage, with the C library's
# malloc left as is, with mmap and trimming off (GLIBC_TUNABLES), and with a larger oneDNN
# primitive cache: which one takes amp's switch cost away.
set -u
O=$OUT/amp; mkdir -p $O
tar xJf build-amp/cpu-server.tar.xz -C /tmp
B=/tmp/cpu-server
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
nproc > $O/host.txt
run() {  # name, env...
  local n=$1; shift
  env "$@" LD_LIBRARY_PATH=$B/lib timeout -s INT 30 $B/new/stagebench run deepfm --size small \
    --backend cpu --stages preallocated-loss,amp --max-time 7 --max-samples 400 --warmup 1 \
    --quality paired-noise -q -o $O/$n.json > $O/$n.log 2>&1
  echo "$n rc=$?"
  python3 - $O/$n.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for st in d["runs"][0]["stages"]:
    t = st.get("time") or {}
    print(" ", st["id"], st["status"], t.get("median_ms") or t.get("median_s") or {k: v for k, v in t.items() if "median" in k})
PY
}
run plain
run nomap GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=4294967296:glibc.malloc.top_pad=268435456
run dnnlcache ONEDNN_PRIMITIVE_CACHE_CAPACITY=8192
run plain2
tar czf $OUT/amp.tar.gz -C $OUT amp
