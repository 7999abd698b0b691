#!/usr/bin/env bash
# Builds a portable stagebench here and gathers it, with the shared libraries a bare GPU machine
# lacks (CLBlast, PAPI, libpfm, oneDNN, the OpenCL ICD loader), into .gpu/ (git-ignored), so the
# device tool can carry it there, with the session driver (scripts/gpu.sh, docs/scripts.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset portable >/dev/null
cmake --build build-portable -j "$(nproc)" --target stagebench
rm -rf .gpu && mkdir -p .gpu/lib
cp build-portable/harness/stagebench scripts/gpu-run.sh scripts/nvidia-opencl-env.sh .gpu/
# the session driver beside it, so that `bash .gpu/gpu.sh ...` needs nothing else from scripts/
cp scripts/gpu.sh scripts/gpu-steps.sh scripts/gpu-steps-reference.sh .gpu/
mkdir -p .gpu/sbgpu && cp scripts/sbgpu/*.py .gpu/sbgpu/
# Everything the binary links except the C runtime the target machine has anyway.
ldd build-portable/harness/stagebench | awk '/=> \//{print $3}' |
  grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" .gpu/lib/; done
du -sh .gpu
