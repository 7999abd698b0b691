#!/usr/bin/env bash
# The CPU at server scale (issue 27, item 6): stagebench built for the GPU machine's host CPU
# (a 16-core Xeon: AVX-512, VNNI, AMX), run there beside PyTorch on the same cores.
#
#   here:   BINARIES="old=/path/to/stagebench new=build-spr/harness/stagebench" \
#             bash scripts/cpu-server.sh bundle [DIR]         # DIR.tar.xz (default .cpu-server)
#   device: BUNDLE=DIR.tar.xz bash scripts/cpu-server.sh run "$OUT"
#
# bundle: each named binary with the shared libraries it links (oneDNN's is 38 MB) and the
# PyTorch reference scripts, xz-compressed, since the device tool carries 64 MiB at most. Build
# a binary for that host with `cmake -S . -B build-spr -G Ninja -DCMAKE_BUILD_TYPE=Release
# -DSTAGEBENCH_NATIVE=OFF -DSTAGEBENCH_GUI=OFF -DSTAGEBENCH_TESTS=OFF -DSTAGEBENCH_DNNL=ON
# -DSTAGEBENCH_OPENCL=OFF -DCMAKE_CXX_FLAGS=-march=sapphirerapids` (no -march: SSE2 Eigen).
#
# run: unpacks the bundle, records lscpu, then in turn (each bounded, SIGINT keeps what a run
# measured): the old binary's Enformer small ladder (OLD_STAGES), the new binary's whole ladder
# with the fp32 GEMM ceiling measured, PyTorch's Enformer small on the CPU (its peer variants in
# their order, fp32 eager, bf16 autocast, compile, until PEER_DEADLINE) added to the new ladder's
# file, the per-op breakdown (STAGEBENCH_CPU_OP_TIMES=1)
# with the host-block pool on and off, the new binary's stage 0 with the pool off (its share of
# the old-to-new change), and stage 0 on one thread (the scaling). Everything runs with
# OMP_NUM_THREADS=THREADS (default: the cores Linux lists), OMP_PROC_BIND=close and
# OMP_PLACES=cores, which PyTorch's OpenMP reads as well, so both run on the same pinned cores.
# Output: OUT/cpu-server/ (logs, JSON, summary.md), tarred into OUT/cpu-server.tar.gz.
set -uo pipefail

mode=${1:-}
here=$(cd "$(dirname "$0")" && pwd)

bundle() {
  local dir=${1:-.cpu-server}
  rm -rf "$dir" "$dir.tar.xz" && mkdir -p "$dir/reference" "$dir/lib"
  for entry in ${BINARIES:?BINARIES=\"name=path ...\"}; do
    local name=${entry%%=*} bin=${entry#*=}
    mkdir -p "$dir/$name"
    cp "$bin" "$dir/$name/stagebench"
    # Everything it links but the C runtime the device has anyway, one copy for all binaries.
    ldd "$bin" | awk '/=> \//{print $3}' |
      grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
      while read -r lib; do cp -L "$lib" "$dir/lib/"; done
  done
  cp "$here"/reference/enformer_torch.py "$here"/reference/peer_timing.py "$dir/reference/"
  cp "$here"/cpu_server_ops.py "$dir/"
  tar -cJf "$dir.tar.xz" -C "$(dirname "$dir")" "$(basename "$dir")"
  du -sh "$dir" "$dir.tar.xz"
}

run() {
  local out=${1:?output folder}/cpu-server
  local tarball=${BUNDLE:?BUNDLE=the .tar.xz that bundle made}
  mkdir -p "$out"
  local root=/tmp/cpu-server-bundle
  rm -rf "$root" && mkdir -p "$root" && tar -xJf "$tarball" -C "$root" || exit 1
  local b
  b=$(dirname "$(find "$root" -name cpu_server_ops.py | head -1)")
  local start=$SECONDS
  log() { echo "[$((SECONDS - start)) s] $*" | tee -a "$out/session.txt"; }
  # step NAME LIMIT_S ENV... -- COMMAND...: one bounded command, its output in NAME.log.
  step() {
    local name=$1 limit=$2
    shift 2
    local envs=()
    while [[ $1 != -- ]]; do envs+=("$1") && shift; done
    shift
    log "$name: ${envs[*]} $*"
    env "${envs[@]}" timeout -s INT -k 15 "$limit" "$@" >"$out/$name.log" 2>&1
    log "$name: exit $?"
  }
  export THREADS=${THREADS:-$(nproc)}
  export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=${OMP_PROC_BIND:-close}
  export OMP_PLACES=${OMP_PLACES:-cores}
  {
    date -u
    echo "host: $(hostname), nproc $(nproc), threads $THREADS"
    echo "OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES OMP_NUM_THREADS=$OMP_NUM_THREADS"
    python3 -c 'import torch; print("torch", torch.__version__, "threads", torch.get_num_threads())'
  } >"$out/session.txt" 2>&1
  lscpu >"$out/lscpu.txt" 2>&1
  free -g >>"$out/lscpu.txt" 2>&1
  local old=(env LD_LIBRARY_PATH="$b/lib" "$b/old/stagebench")
  local new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
  local size=${SIZE:-small}
  local e=(run enformer --size "$size" --backend cpu)
  [[ -x $b/old/stagebench ]] &&
    step old-ladder "${OLD_LIMIT:-45}" -- "${old[@]}" "${e[@]}" \
      --stages ${OLD_STAGES:-original graph-compile bf16} --max-time "${OLD_MAX_TIME:-20}" \
      -o "$out/enformer-$size-old.json"
  step new-ladder "${NEW_LIMIT:-60}" -- "${new[@]}" "${e[@]}" --max-time "${NEW_MAX_TIME:-30}" \
    -o "$out/enformer-$size-new.json"
  # libgomp binds a process's first thread to the first place when OMP_PROC_BIND is set, and a
  # child inherits that one core: PyTorch under a bound stagebench ran on one core (fp32 eager
  # 906 ms, 2026-11-28). So stagebench peer runs unbound and Python binds its own threads.
  printf '#!/bin/sh\nexport OMP_PROC_BIND=%s OMP_PLACES=%s\nexec python3 "$@"\n' \
    "$OMP_PROC_BIND" "$OMP_PLACES" >"$root/python-bound" && chmod +x "$root/python-bound"
  [[ ${PEER:-1} == 1 ]] &&
    step peer "${PEER_LIMIT:-110}" -u OMP_PROC_BIND -u OMP_PLACES -- "${new[@]}" peer enformer \
      --size "$size" --device cpu --python "$root/python-bound" --variant-budget 70 \
      --scripts "$b/reference" --runs "${PEER_RUNS:-20}" --deadline "${PEER_DEADLINE:-95}" \
      ${PEER_VARIANTS:+--variants $PEER_VARIANTS} \
      -o "$out/enformer-$size-new.json"
  local ops_stages=${OPS_STAGES:-original graph-compile bf16}
  step ops-pool-on 30 STAGEBENCH_CPU_OP_TIMES=1 -- "${new[@]}" "${e[@]}" --no-ceilings \
    --stages $ops_stages --max-time 10 -o "$out/ops-pool-on.json"
  [[ ${EXTRA:-1} == 1 ]] && step ops-pool-off 20 STAGEBENCH_CPU_OP_TIMES=1 STAGEBENCH_CPU_POOL=off -- "${new[@]}" \
    "${e[@]}" --no-ceilings --stages original --max-time 6 -o "$out/ops-pool-off.json"
  [[ ${EXTRA:-1} == 1 ]] && step new-pool-off 20 STAGEBENCH_CPU_POOL=off -- "${new[@]}" "${e[@]}" --no-ceilings \
    --stages original graph-compile --max-time 8 -o "$out/enformer-$size-new-pool-off.json"
  [[ ${EXTRA:-1} == 1 ]] && step one-thread 20 OMP_NUM_THREADS=1 -- "${new[@]}" "${e[@]}" --no-ceilings \
    --stages original --max-time 6 --min-samples 3 -o "$out/enformer-$size-new-1thread.json"
  {
    for f in enformer-$size-old enformer-$size-new enformer-$size-new-pool-off \
      enformer-$size-new-1thread; do
      [[ -f $out/$f.json ]] || continue
      echo "# $f.json"
      "${new[@]}" report "$out/$f.json"
      echo
    done
    for f in ops-pool-on ops-pool-off; do
      [[ -f $out/$f.json ]] && echo "# $f.json" && python3 "$b/cpu_server_ops.py" "$out/$f.json" 25
    done
  } >"$out/summary.md" 2>&1
  log "done"
  tar -czf "$out.tar.gz" -C "$(dirname "$out")" cpu-server
}

case $mode in
  bundle) bundle "${2:-}" ;;
  run) run "${2:-${OUT:-}}" ;;
  *)
    echo "usage: $0 bundle [DIR] | run OUT" >&2
    exit 2
    ;;
esac
