#!/usr/bin/env bash
# replay35's device call (issue 27 item 4), run from the root of /work/main with build-replay35
# carried (the bundle of branch replay35 in .gpu, this script beside it):
#   1. stagebench run dynunet --size full --stages graph-replay (stage 0 comes with it): the
#      forward recorded as a launch list and replayed; summaries.graph_replay holds the check
#      against the same stage's eager forward and stage 0's, the launch count, and the eager and
#      replayed forwards' device-complete and host times with the events on and off;
#   2. PyTorch's peer, compile-fp16 (training and inference), with what is left.
# Everything lands in one archive, r35.tar.gz.
set -u
B=build-replay35/.gpu
O=$OUT/r35
T=${T:-165}
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
left() { echo $((T - ($(date +%s) - t0))); }
. "$B/nvidia-opencl-env.sh"
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
f="$O/dynunet-full"
timeout -s INT -k 10 $(($(left) - 50)) "$B/gpu-run.sh" run dynunet --size full --backend opencl \
  --stages graph-replay --repeat 1 --max-time 3 -o "$f.json" > "$f.log" 2>&1
log "stagebench rc=$?"
[ -s "$f.json" ] && "$B/gpu-run.sh" report "$f.json" > "$f.md" 2>> "$O/call.log"
python3 - "$f.json" <<'PY' 2>&1 | tee -a "$O/call.log"
import json, sys
for st in json.load(open(sys.argv[1]))["runs"][0]["stages"]:
    s = st.get("summaries", {})
    print(st["id"], st["status"], st.get("reason"), "inference", s.get("inference", {}).get("median_ms"))
    if "graph_replay" in s: print(json.dumps(s["graph_replay"], indent=1))
PY
l=$(($(left) - 8))
log "peer deadline ${l}s"
if [ "$l" -ge 30 ]; then
  timeout -s INT "$l" python3 scripts/reference/dynunet_torch.py peer --size full \
    --device cuda --variants compile-fp16 --deadline-s $((l - 5)) --variant-budget-s $((l - 5)) \
    --peer-json "$O/dynunet-peer.json" > "$O/dynunet-peer.log" 2>&1
  log "peer rc=$?"
  tail -3 "$O/dynunet-peer.log"
fi
log "clocks at the end: $(gpu_clocks)"
tar czf "$OUT/r35.tar.gz" -C "$OUT" r35 && rm -rf "$O"
