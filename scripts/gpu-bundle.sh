#!/usr/bin/env bash
# Builds a portable stagebench here and gathers it, with the shared libraries a bare GPU machine
# lacks (CLBlast, PAPI, libpfm, oneDNN, the OpenCL ICD loader), into .gpu/ (git-ignored), so the
# device tool can carry it there.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset portable >/dev/null
cmake --build build-portable -j "$(nproc)" --target stagebench
rm -rf .gpu && mkdir -p .gpu/lib
cp build-portable/harness/stagebench scripts/gpu-run.sh scripts/nvidia-opencl-env.sh .gpu/
# Everything the binary links except the C runtime the target machine has anyway.
ldd build-portable/harness/stagebench | awk '/=> \//{print $3}' |
  grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" .gpu/lib/; done
du -sh .gpu
