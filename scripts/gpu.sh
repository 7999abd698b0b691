#!/usr/bin/env bash
# The GPU session driver (issue 28): one preamble and every step the device calls run, so that a
# session is a list of steps, not a copy of a script. Run on the device machine from the
# checkout's root with the bundle carried (scripts/gpu-bundle.sh); docs/scripts.md lists the
# steps, presets and switches. Here, `--backend opencl` runs the same plumbing on any OpenCL
# platform (PoCL) without NVIDIA or CUDA: the ctest gpu_driver_pocl does.
#
#   scripts/gpu.sh [OPTIONS] PRESET|STEP... [OUT]
#   --out DIR        where the session folder goes (default: OUT, the positional, or $OUT)
#   --dir NAME       the session folder under OUT, tarred into OUT/NAME.tar.gz (default: the
#                    preset's name, else "session")
#   --models "A B"   models for every step (default: LANES for ladders, MODEL for the rest)
#   --size S         the ladders' and timelines' size (SIZE, default full)
#   --limit S        everything, the tar included, ends within S seconds (LIMIT, default 560)
#   --backend B      nvidia (default: register NVIDIA's ICD, nvidia-smi, CUDA for PyTorch) or
#                    opencl (whatever OpenCL platform is there; steps needing CUDA are skipped)
#   --bundle DIR     stagebench, ops_test, lib/ (BUNDLE, default .gpu)
#   --stagebench F   the binary (STAGEBENCH, default BUNDLE/stagebench)
#   --dry-run        log each command instead of running it
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
presets="check ladders kernels wgmma conv-igemm checkpoints tune enformer geneformer deepfm dynunet"
steps_known="ceilings tests timeline ladder gemm reference torch probe checkpoints tune igemm-shapes
  igemm-tiles igemm-bwd"
die() { echo "gpu.sh: $*" >&2; exit 2; }

out="${OUT:-}" dir="" size="${SIZE:-full}" limit="${LIMIT:-560}" backend="${GPU_BACKEND:-nvidia}"
bundle="${BUNDLE:-.gpu}" stagebench="${STAGEBENCH:-}" dry=0 steps=() preset=""
models_all="${MODELS:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --dir) dir="${2:?--dir needs a name}"; shift 2 ;;
    --models) models_all="${2:?--models needs names}"; shift 2 ;;
    --size) size="${2:?--size needs a size}"; shift 2 ;;
    --limit) limit="${2:?--limit needs seconds}"; shift 2 ;;
    --backend) backend="${2:?--backend needs nvidia or opencl}"; shift 2 ;;
    --bundle) bundle="${2:?--bundle needs a folder}"; shift 2 ;;
    --stagebench) stagebench="${2:?--stagebench needs a file}"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *)
      if [[ " $presets " == *" $1 "* ]]; then [ -z "$preset" ] || die "one preset a call"; preset=$1
      elif [[ " ${steps_known//$'\n'/ } " == *" $1 "* ]]; then steps+=("$1")
      elif [ -z "$out" ] || [ "$out" = "${OUT:-}" ]; then out=$1
      else die "'$1' is neither a step nor a preset (steps: ${steps_known//$'\n'/}; presets: $presets)"
      fi
      shift ;;
  esac
done
case "$backend" in nvidia|opencl) ;; *) die "--backend must be nvidia or opencl, not '$backend'" ;; esac
[[ "$limit" =~ ^[0-9]+$ ]] || die "--limit must be whole seconds, not '$limit'"
[ -n "$out" ] || die "no output folder: give OUT, --out DIR or set OUT"
[ -n "$preset" ] || [ ${#steps[@]} -gt 0 ] || die "name a preset or at least one step"
bundle="$(cd "$bundle" 2>/dev/null && pwd || echo "$PWD/$bundle")"
stagebench="${stagebench:-$bundle/stagebench}"
[ -x "$stagebench" ] || [ "$dry" = 1 ] || die "no stagebench at $stagebench (--bundle or --stagebench)"
stagebench="$(cd "$(dirname "$stagebench")" 2>/dev/null && pwd || dirname "$stagebench")/$(basename "$stagebench")"
ref="${SCRIPTS:-scripts/reference}"

# Presets: the sessions that were scripts of their own (scripts/gpu-*.sh), each as its steps and
# the defaults it had. A variable already set wins over the preset's default.
preset_default() { [ -n "${!1+x}" ] || export "$1=$2"; }
case "$preset" in
  check) steps=(tests timeline) ;;
  ladders) steps=(ceilings ladder) ;;
  kernels)
    steps=(ceilings tests ladder)
    preset_default LANES "gemm geneformer enformer"; preset_default LANES_PARALLEL 0
    preset_default TESTS '*OpenCL*:*opencl*'; preset_default STAGEBENCH_CL_BUILD_LOG 1 ;;
  wgmma)
    steps=(ceilings gemm ladder)
    preset_default LANES "geneformer enformer"; preset_default LANES_PARALLEL 0
    preset_default LADDER_VARIANTS "off:STAGEBENCH_WGMMA=off on:STAGEBENCH_WGMMA=on"
    preset_default LADDER_ROUNDS 2; preset_default REPEAT 1; preset_default PEER_VARIANT on
    preset_default MAX_TIME 15; preset_default LOG_KEYS gemm_paths ;;
  conv-igemm)
    for p in ${PHASES:-shapes ladder}; do
      case "$p" in
        shapes|tiles|bwd) steps+=("igemm-$p") ;;
        timeline|ladder) steps+=("$p") ;;
        final) [[ " ${steps[*]} " == *" ladder "* ]] || steps+=(ladder) ;;
        *) die "PHASES: unknown phase '$p' (shapes tiles bwd timeline ladder final)" ;;
      esac
    done
    preset_default MODEL dynunet; preset_default LANES dynunet; preset_default REPEAT 1
    tl=""; for m in ${TL_MODES:-off on}; do tl+=" $m:STAGEBENCH_CONV_IGEMM=$m"; done
    # here STAGES meant the ladder's stages and STAGES_TL the timeline's
    preset_default LADDER_STAGES "${STAGES:-baseline,channels-last,compile}"
    export STAGES="${STAGES_TL:-channels-last}"
    preset_default VARIANTS "$tl"
    preset_default RUN_ARGS "--max-time 15 --max-samples 10 --warmup 2"
    preset_default LADDER_VARIANTS "off:STAGEBENCH_CONV_IGEMM=off on:STAGEBENCH_CONV_IGEMM=on"
    preset_default PEER_VARIANT on; preset_default MAX_TIME 40; preset_default LOG_KEYS gemm_calls ;;
  checkpoints) steps=(checkpoints) ;;
  tune) steps=(tune) ;;
  enformer|geneformer|deepfm|dynunet)
    steps=(probe reference torch ladder)
    [ "$preset" = enformer ] || steps=(reference torch ladder)
    preset_default MODEL "$preset"; preset_default LANES "$preset"
    [ "$preset" != geneformer ] || preset_default LADDER_ARGS "--batch ${BATCH:-32}"
    preset_default MAX_TIME 90 ;;
esac
[ -n "$dir" ] || dir="${preset:-session}"
o="$out/$dir"
mkdir -p "$o" || die "cannot make $o"
o="$(cd "$o" && pwd)"
export PYTHONUNBUFFERED=1

# --- the preamble: one for every session --------------------------------------------------------
start=$(date +%s)
left() { echo $((limit - ($(date +%s) - start))); }
exec 3>&1  # the call's own stdout: log lines reach it even from commands whose output is a file
log() { echo "$(date -u +%T) [$(($(date +%s) - start))s] $*" | tee -a "$o/session.txt" >&3; }
sbgpu() { PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" python3 -m sbgpu "$@"; }
# run SECONDS CMD...: CMD within SECONDS and what is left of the limit (less a margin for the
# tar); interrupted by SIGINT so that stagebench keeps what it measured. Returns CMD's status.
run() {
  local secs=$1 cap; shift
  cap=$(($(left) - 15))
  [ "$secs" -le "$cap" ] || secs=$cap
  if [ "$secs" -lt 5 ]; then log "skipped, $(left)s left: $*"; return 124; fi
  if [ "$dry" = 1 ]; then log "dry-run: timeout ${secs}s $*"; return 0; fi
  timeout -s INT -k 10 "$secs" "$@"
}
sb() { run "$1" "$stagebench" "${@:2}"; }
# variables_of ENTRY: a NAME:VAR=VALUE,VAR=VALUE entry's assignments, one a line.
variables_of() { [ "$1" != "${1%%:*}" ] && tr ',' '\n' <<< "${1#*:}"; }
models_for() {  # $1: the step; the models it runs, in order
  if [ -n "$models_all" ]; then echo "$models_all"
  elif [ "$1" = ladder ]; then echo "${LANES:-enformer geneformer deepfm dynunet}"
  else echo "${MODEL:-dynunet}"; fi
}
needs_cuda() {  # $1: what; false (and logged) where this session has no CUDA
  [ "$backend" = nvidia ] && return 0
  log "$1 skipped: the opencl backend has no CUDA"; return 1
}

if [ "$backend" = nvidia ]; then
  # shellcheck source=scripts/nvidia-opencl-env.sh
  . "$here/nvidia-opencl-env.sh"
  nvidia_opencl_env "$bundle/lib"
fi
{
  echo "date $(date -u +%FT%TZ)"
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo "not a git checkout")" \
    "dirty $(git status --porcelain --untracked-files=no 2>/dev/null | wc -l) tracked file(s)" \
    "(the checkout running these scripts; a carried copy may keep an older .git: the bundle line" \
    "and each result's context.build name the code that ran)"
  [ -f "$bundle/BUILD_INFO" ] && sed 's/^/bundle /' "$bundle/BUILD_INFO"
  echo "host $(hostname) $(nproc) cores; backend $backend; limit ${limit}s"
  echo "call ${preset:+preset $preset, }steps ${steps[*]}; size $size; stagebench $stagebench"
  # the switches this call was given (docs/scripts.md), so that the manifest can name them
  env | grep -E '^(MODELS?|LANES(_PARALLEL)?|(LADDER_)?STAGES|TESTS|(TEST_|LADDER_)?VARIANTS)=' | sed 's/^/env /'
  env | grep -E '^(PRECISIONS|REPEAT|MAX_TIME|(RUN|LADDER)_ARGS|PEER|STAGEBENCH_[A-Z_]+)=' | sed 's/^/env /'
} >> "$o/session.txt"
if [ "$dry" = 1 ]; then
  echo "dry-run: no GPU query" > "$o/gpu.txt"
  gpus=1
elif [ "$backend" = nvidia ]; then
  gpu_facts "$o/gpu.txt"
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
else
  { echo "backend opencl: no NVIDIA query"; command -v clinfo > /dev/null && clinfo -l; } > "$o/gpu.txt" 2>&1
  gpus=1
fi
[ "$gpus" -ge 1 ] || gpus=1
log "$(tr '\n' ' ' < "$o/gpu.txt" | head -c 400)"
clocks() { [ "$backend" = nvidia ] && [ "$dry" = 0 ] && log "clocks at the $1 (index, sm, max sm, temperature, power): $(gpu_clocks)"; }
clocks start
ceiling_args=()

# --- the steps ----------------------------------------------------------------------------------
# shellcheck source=scripts/gpu-steps.sh
. "$here/gpu-steps.sh"
for step in "${steps[@]}"; do
  log "step $step ($(left)s left)"
  "step_${step//-/_}"
done
clocks end
log "done"
tar czf "$out/$dir.tar.gz" -C "$out" "$dir"
