#!/usr/bin/env bash
# Builds the wgmma probe (probes/wgmma, issue 27) here, without the rest of the project, and
# gathers what the GPU machine needs into DEST (default .wgmma/, git-ignored): the binary, the
# OpenCL ICD loader it links, its kernel source, the mma.sync kernels it times beside it (this
# checkout's models/ops/opencl/kernels), the cuBLAS script and scripts/wgmma-device.sh. Then, with
# DEST named in the device tool's carry: bash DEST/wgmma-device.sh "$OUT".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.wgmma}"
mkdir -p "$dest/lib" "$dest/kernels" "$dest/mma-kernels"
c++ -std=c++20 -O2 -Wall -Wextra -I"$root" "$root/probes/wgmma/wgmma_probe.cpp" \
  "$root/probes/wgmma/probe_cl.cpp" "$root/probes/wgmma/probe_numerics.cpp" \
  "$root/models/ops/opencl/wgmma_ptx.cpp" "$root/models/ops/opencl/wgmma_program.cpp" -lOpenCL -o "$dest/wgmma_probe"
cp -L "$(ldd "$dest/wgmma_probe" | awk '/libOpenCL/{print $3}')" "$dest/lib/"
cp "$root/probes/wgmma/wgmma_gemm.cl" "$dest/kernels/"
cp "$root/models/ops/activation_codes.h" "$dest/mma-kernels/"  # common.cl's SB_ACT_*
for f in common gemm_mma_nvidia gemm_pipelined gemm_pipe_body; do
  cp "$root/models/ops/opencl/kernels/$f.cl" "$dest/mma-kernels/"
done
cp "$root/probes/wgmma/cublas_f16.py" "$root/scripts/wgmma-device.sh" "$root/scripts/nvidia-opencl-env.sh" "$dest/"
{
  echo "commit $(git -C "$root" rev-parse HEAD)"
  echo "dirty $(git -C "$root" status --porcelain --untracked-files=no | wc -l) tracked file(s) modified"
  echo "built $(date -u +%FT%TZ) on $(uname -m) with $(c++ --version | head -n1)"
} > "$dest/BUILD_INFO"
du -sh "$dest"
