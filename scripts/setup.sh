#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the main job need. Safe to re-run.
# `--fuzz` adds clang with its sanitizer runtimes and libFuzzer, which only the fuzz preset uses
# (scripts/fuzz-ci.sh, run by .ci/run after the README's test command): the README's commands do
# not wait for them (docs/testing.md).
set -euo pipefail
fuzz=0
for a in "$@"; do
  case "$a" in
    --fuzz) fuzz=1 ;;
    *) echo "setup.sh: unknown argument '$a' (only --fuzz)" >&2; exit 2 ;;
  esac
done
packages=(
  build-essential cmake ninja-build pkg-config git clang-format ccache python3
  libeigen3-dev nlohmann-json3-dev libcli11-dev libgtest-dev
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libpcre2-dev libclblast-dev libdnnl-dev libpapi-dev libpfm4-dev papi-tools libhwloc-dev
  qtbase5-dev libqt5charts5-dev libqt5svg5-dev chromium
  slurm-wlm munge  # tests/slurm: a one-node Slurm for the cluster sweep test
)
# fuzz/: clang with its ASan and UBSan runtimes, OpenMP for clang.
[ "$fuzz" = 1 ] && packages+=(clang libclang-rt-dev libomp-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi

[ "$fuzz" = 1 ] || exit 0
# libFuzzer for the installed clang (fuzz/): Debian versions the package (libfuzzer-14-dev with
# clang 14), so its name comes from clang's major version rather than being fixed here.
clang_major=$(clang --version | sed -nE 's/.*clang version ([0-9]+).*/\1/p' | head -1)
fuzzer="libfuzzer-${clang_major}-dev"
if ! dpkg-query -W -f='${Status}' "$fuzzer" 2>/dev/null | grep -q 'install ok installed'; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "$fuzzer" ||
    { $sudo_cmd apt-get update &&
      DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "$fuzzer"; }
fi
