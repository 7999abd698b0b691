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
# run: unpacks the bundle, records lscpu and what PyTorch's process is bound to, then in turn
# (each step bounded, SIGINT keeps what a run measured; the tarball is refreshed after each):
# - the old binary's ladder of each model of OLD_MODEL (default enformer; OLD_STAGES, or
#   OLD_STAGES_<model> for one of several; OLD_SAMPLING), if the bundle has one;
# - for each model of MODELS (default "enformer deepfm dynunet"), the new binary's whole ladder
#   at SIZE (the fp32 GEMM ceiling measured once, with the first), with the sampling method of
#   SAMPLING (default: up to 400 rounds, quality held 10 checks in a row, docs/method.md; add
#   --quality paired-noise to judge by the paired criterion), each ladder within its
#   MAX_TIME_<model> seconds;
#   then, for the models of PEER_MODELS (default MODELS), `stagebench peer` on the CPU beside it
#   (PEER_DEADLINE_<model>; its whole menu: peer --variants only adds to an earlier block), or
#   with PEER_LAST=1 after every other step, so that a call's limit cuts PyTorch's last variants
#   rather than a step of ours;
# - if KNOB is set ("VAR=value ..."), the first model's ladder again (KNOB_STAGES) with those
#   variables: a before/after of a runtime switch in the same call;
# - the per-op breakdown (STAGEBENCH_CPU_OP_TIMES=1, OPS=1; each model of OPS_MODEL, default
#   enformer, OPS_STAGES or OPS_STAGES_<model>, OPS_TIME) and, with EXTRA=1, the host-block pool
#   off and one thread (srv28's steps);
# - with VERBOSE_MODEL and VERBOSE_STAGES set, one short run of those stages under DNNL_VERBOSE=1:
#   which oneDNN kernel ran each matmul shape (counted, dnnl-verbose.txt);
# - unless NOISE=0, Enformer's stage 0 alone (NOISE_MODEL, NOISE_STAGES) under other placements
#   (16 threads bound, libgomp spinning with OMP_WAIT_POLICY=ACTIVE, THREADS-1 threads, THREADS-1
#   spinning; NOISE_PLACEMENTS="name ENV...; ..." for others), NOISE_TIME s each;
# - summary.md: each result's report, the op tables, and scripts/cpu_server_noise.py's table of
#   what varies (spread, first samples, drift, the old budget's verdict replayed).
# Everything runs with OMP_NUM_THREADS=THREADS (default: the cores Linux lists),
# OMP_PROC_BIND=close and OMP_PLACES=cores, which PyTorch's OpenMP reads as well, so both run on
# the same pinned cores. Output: OUT/cpu-server/ (logs, JSON, summary.md), tarred into
# OUT/cpu-server.tar.gz.
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
  # Every reference module but the tests: the model scripts import their helpers
  # (geneformer_torch.py: cuda_timing.py and synthetic_cells.py; without them its peer exited 1,
  # gfcpu37's first call and dfmcpu37's).
  find "$here/reference" -maxdepth 1 -name '*.py' ! -name 'test_*' -exec cp {} "$dir/reference/" \;
  cp "$here"/cpu_server_ops.py "$here"/cpu_server_noise.py "$here"/cpu_server_ab.py "$dir/"
  # PROBE: scripts/cpu_server_gemm_probe.cpp built for the host (it links the same oneDNN).
  [[ -n ${PROBE:-} ]] && cp "$PROBE" "$dir/probe"
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
  pack() { tar -czf "$out.tar.gz" -C "$(dirname "$out")" cpu-server; }
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
    pack
  }
  export THREADS=${THREADS:-$(nproc)}
  export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=${OMP_PROC_BIND:-close}
  export OMP_PLACES=${OMP_PLACES:-cores}
  # libgomp binds a process's first thread to the first place when OMP_PROC_BIND is set, and a
  # child inherits that one core: PyTorch under a bound stagebench ran on one core (fp32 eager
  # 906 ms, 2026-11-28). So stagebench peer runs unbound and Python binds its own threads.
  # Inductor sizes its compile pool by the main thread's cores at import, one once bound: the
  # wrapper gives it THREADS (peer_timing.py unbinds the compiles themselves).
  printf '#!/bin/sh\nexport OMP_PROC_BIND=%s OMP_PLACES=%s TORCHINDUCTOR_COMPILE_THREADS=%s\nexec python3 "$@"\n' \
    "$OMP_PROC_BIND" "$OMP_PLACES" "$THREADS" >"$root/python-bound" && chmod +x "$root/python-bound"
  {
    date -u
    echo "host: $(hostname), nproc $(nproc), threads $THREADS"
    echo "OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES OMP_NUM_THREADS=$OMP_NUM_THREADS"
    python3 -c 'import torch; print("torch", torch.__version__, "threads", torch.get_num_threads())'
    echo "bound python, as the peer starts it (without TORCHINDUCTOR_COMPILE_THREADS):"
    env -u TORCHINDUCTOR_COMPILE_THREADS OMP_PROC_BIND="$OMP_PROC_BIND" OMP_PLACES="$OMP_PLACES" \
      python3 -c 'import os, torch; print("main thread cores", sorted(os.sched_getaffinity(0))); import torch._inductor.config as c; print("inductor compile_threads", c.compile_threads)'
  } >>"$out/session.txt" 2>&1
  lscpu >"$out/lscpu.txt" 2>&1
  free -g >>"$out/lscpu.txt" 2>&1
  local old=(env LD_LIBRARY_PATH="$b/lib" "$b/old/stagebench")
  local new=(env LD_LIBRARY_PATH="$b/lib" "$b/new/stagebench")
  local size=${SIZE:-small}
  # Plain noise by default (docs/method.md): paired-noise made no stage valid on the host in
  # cpu30, the stricter of the two beside a jittery stage 0; in cpu35, with that jitter gone, it
  # validated all 8 of DeepFM's stages where plain noise left 3 at 1.1% (drift common to a
  # round). SAMPLING="... --quality paired-noise" asks for it.
  local sampling=(${SAMPLING:---max-samples 400 --stable-checks 10 --warmup 1})
  # The old binary may predate paired-noise: its own sampling flags.
  local old_sampling=(${OLD_SAMPLING:---max-samples 400 --stable-checks 10 --warmup 1})
  # stagebench peer on the CPU for each model of `peers`, beside its ladder's result.
  run_peers() {
    local model
    for model in "${peers[@]}"; do
      local deadline_var=PEER_DEADLINE_$model
      local deadline=${!deadline_var:-60}
      step "$model-peer" $((deadline + 30)) -u OMP_PROC_BIND -u OMP_PLACES -- "${new[@]}" peer \
        "$model" --size "$size" --device cpu --python "$root/python-bound" \
        --variant-budget "${PEER_VARIANT_BUDGET:-120}" --scripts "$b/reference" \
        --runs "${PEER_RUNS:-20}" --deadline "$deadline" -o "$out/$model-$size-new.json"
    done
  }
  # The GEMM probe (bundled with PROBE=): each DeepFM product alone at PROBE_THREADS.
  [[ -x $b/probe ]] && step gemm-probe 90 -- env LD_LIBRARY_PATH="$b/lib" "$b/probe" \
    ${PROBE_THREADS:-1 4 8 12 16}
  # AB_VARIANTS="name ENV...; name ENV...": AB_MODEL's AB_STAGES under each variant in turn,
  # AB_ROUNDS times round (a process each, AB_TIME s), so that the host's drift over the call
  # falls on every variant alike; cpu_server_ab.py compares them round by round.
  if [[ -n ${AB_VARIANTS:-} ]]; then
    local variants ab_files=()
    IFS=';' read -ra variants <<<"$AB_VARIANTS"
    for ((r = 1; r <= ${AB_ROUNDS:-2}; r++)); do
      for v in "${variants[@]}"; do
        v=$(echo "$v" | xargs)
        local vname=${v%% *} venvs=()
        [[ $v == *" "* ]] && read -ra venvs <<<"${v#* }"
        step "ab-$vname-$r" $((${AB_TIME:-5} + 20)) "${venvs[@]}" -- "${new[@]}" run \
          "${AB_MODEL:-deepfm}" --size "$size" --backend cpu --no-ceilings \
          --stages ${AB_STAGES:-preallocated-loss amp} "${sampling[@]}" --max-time "${AB_TIME:-5}" \
          -o "$out/ab-$vname-$r.json"
        ab_files+=("$out/ab-$vname-$r.json")
      done
    done
    python3 "$b/cpu_server_ab.py" "${ab_files[@]}" >"$out/ab.md" 2>&1
  fi
  local old_models=(${OLD_MODEL:-enformer})
  for old_model in "${old_models[@]}"; do
    local old_stages_var=OLD_STAGES_$old_model log_name=old-ladder
    ((${#old_models[@]} > 1)) && log_name=old-$old_model
    [[ -x $b/old/stagebench ]] &&
      step "$log_name" "${OLD_LIMIT:-45}" -- "${old[@]}" run "$old_model" --size "$size" \
        --backend cpu --stages ${!old_stages_var:-${OLD_STAGES:-original graph-compile bf16}} \
        --no-ceilings "${old_sampling[@]}" --max-time "${OLD_MAX_TIME:-20}" \
        -o "$out/$old_model-$size-old.json"
  done
  local ceilings=() peers=()
  for model in ${MODELS:-enformer deepfm dynunet}; do
    local max_time_var=MAX_TIME_$model
    local max_time=${!max_time_var:-30}
    local json=$out/$model-$size-new.json
    step "$model-ladder" $((max_time + ${LADDER_SETUP_S:-40})) -- "${new[@]}" run "$model" \
      --size "$size" --backend cpu "${sampling[@]}" --max-time "$max_time" "${ceilings[@]}" \
      -o "$json"
    ceilings=(--no-ceilings)  # one fp32 ceiling a call: the first ladder's
    [[ ${PEER:-1} == 1 && -f $json && " ${PEER_MODELS:-$model} " == *" $model "* ]] &&
      peers+=("$model")
    if [[ ${PEER_LAST:-0} != 1 ]]; then
      run_peers
      peers=()
    fi
  done
  if [[ -n ${KNOB:-} ]]; then
    local first=(${MODELS:-enformer})
    local knob_envs
    read -ra knob_envs <<<"$KNOB"
    local knob_time_var=MAX_TIME_${first[0]}
    step "${first[0]}-knob" $((${!knob_time_var:-30} + ${LADDER_SETUP_S:-40})) "${knob_envs[@]}" -- \
      "${new[@]}" run "${first[0]}" --size "$size" --backend cpu ${KNOB_STAGES:+--stages $KNOB_STAGES} \
      --no-ceilings "${sampling[@]}" --max-time "${!knob_time_var:-30}" \
      -o "$out/${first[0]}-$size-knob.json"
  fi
  local e=(run enformer --size "$size" --backend cpu)
  local ops_models=(${OPS_MODEL:-enformer})
  for ops_model in "${ops_models[@]}"; do
    local ops_stages_var=OPS_STAGES_$ops_model ops_name=ops-pool-on
    ((${#ops_models[@]} > 1)) && ops_name=ops-$ops_model
    [[ ${OPS:-0} == 1 ]] && step "$ops_name" $((${OPS_TIME:-10} + 20)) STAGEBENCH_CPU_OP_TIMES=1 -- \
      "${new[@]}" run "$ops_model" --size "$size" --backend cpu --no-ceilings \
      --stages ${!ops_stages_var:-${OPS_STAGES:-original graph-compile bf16}} \
      --max-time "${OPS_TIME:-10}" -o "$out/$ops_name.json"
  done
  # Which oneDNN kernel ran each matmul: DNNL_VERBOSE's exec lines, counted by kernel and shape.
  if [[ -n ${VERBOSE_MODEL:-} && -n ${VERBOSE_STAGES:-} ]]; then
    step verbose 30 DNNL_VERBOSE=1 -- "${new[@]}" run "$VERBOSE_MODEL" --size "$size" --backend cpu \
      --no-ceilings --stages $VERBOSE_STAGES --max-time 1 --min-samples 2 --max-samples 2 -o "$out/verbose.json"
    grep -E '^(dnnl|onednn)_verbose,exec' "$out/verbose.log" | cut -d, -f4-10 | sort | uniq -c |
      sort -rn >"$out/dnnl-verbose.txt"
    grep -E '^(dnnl|onednn)_verbose,info' "$out/verbose.log" | sort -u >>"$out/dnnl-verbose.txt"
    rm -f "$out/verbose.log" "$out/verbose.json"
  fi
  [[ ${EXTRA:-0} == 1 ]] && step ops-pool-off 20 STAGEBENCH_CPU_OP_TIMES=1 STAGEBENCH_CPU_POOL=off -- "${new[@]}" \
    "${e[@]}" --no-ceilings --stages original --max-time 6 -o "$out/ops-pool-off.json"
  [[ ${EXTRA:-0} == 1 ]] && step new-pool-off 20 STAGEBENCH_CPU_POOL=off -- "${new[@]}" "${e[@]}" --no-ceilings \
    --stages original graph-compile --max-time 8 -o "$out/enformer-$size-new-pool-off.json"
  [[ ${EXTRA:-0} == 1 ]] && step one-thread 20 OMP_NUM_THREADS=1 -- "${new[@]}" "${e[@]}" --no-ceilings \
    --stages original --max-time 6 --min-samples 3 -o "$out/enformer-$size-new-1thread.json"
  # What varies with placement: stage 0 alone, the same sampling, NOISE_TIME s each.
  # NOISE_MODEL and NOISE_STAGES pick the ladder (default Enformer's stage 0); NOISE_PLACEMENTS,
  # ";"-separated "name ENV...", replaces the default four placements.
  local nt=${NOISE_TIME:-5} noise_files=()
  if [[ ${NOISE:-1} == 1 ]]; then
    # One core left to the VM with libgomp spinning is the placement that made Enformer's
    # stages valid (gfcpu37: p90-p10 4-14% of the median against 9-77% bound, 4 of 7 stages
    # valid by paired noise in 10 s against none); unbound, in every earlier study no better
    # than bound, gave it its slot.
    local placements=("bound" "active OMP_WAIT_POLICY=ACTIVE"
      "threads$((THREADS - 1)) OMP_NUM_THREADS=$((THREADS - 1))"
      "threads$((THREADS - 1))active OMP_NUM_THREADS=$((THREADS - 1)) OMP_WAIT_POLICY=ACTIVE")
    [[ -n ${NOISE_PLACEMENTS:-} ]] && IFS=';' read -ra placements <<<"$NOISE_PLACEMENTS"
    local noise_model=${NOISE_MODEL:-enformer}
    for p in "${placements[@]}"; do
      p=$(echo "$p" | xargs)  # trim
      local name=${p%% *} envs=()
      [[ $p == *" "* ]] && read -ra envs <<<"${p#* }"
      step "noise-$name" $((nt + 25)) "${envs[@]}" -- "${new[@]}" run "$noise_model" \
        --size "$size" --backend cpu --no-ceilings --stages ${NOISE_STAGES:-original} \
        "${sampling[@]}" --max-time "$nt" -o "$out/noise-$name.json"
      noise_files+=("$out/noise-$name.json")
    done
  fi
  run_peers
  {
    for f in "$out"/*-"$size"-*.json; do
      [[ -f $f ]] || continue
      echo "# $(basename "$f")"
      "${new[@]}" report "$f"
      echo
    done
    for f in "$out"/ops-*.json; do
      [[ -f $f ]] && echo "# $(basename "$f")" && python3 "$b/cpu_server_ops.py" "$f" 25
    done
    local measured=()
    for f in "$out"/*-"$size"-*.json "${noise_files[@]}"; do [[ -f $f ]] && measured+=("$f"); done
    ((${#measured[@]})) && python3 "$b/cpu_server_noise.py" "${measured[@]}"
  } >"$out/summary.md" 2>&1
  log "done"
  pack
}

case $mode in
  bundle) bundle "${2:-}" ;;
  run) run "${2:-${OUT:-}}" ;;
  *)
    echo "usage: $0 bundle [DIR] | run OUT" >&2
    exit 2
    ;;
esac
