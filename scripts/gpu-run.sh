#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .gpu/ carried there by
# scripts/gpu-bundle.sh. NVIDIA's OpenCL is installed there but not registered with the ICD loader:
# register it for this process only, then run stagebench with the given arguments.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
icd_dir="$(mktemp -d)"
lib=/usr/lib/libnvidia-opencl.so
[ -e "$lib" ] || lib="$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* 2>/dev/null | head -n1)"
echo "$lib" > "$icd_dir/nvidia.icd"
export OCL_ICD_VENDORS="$icd_dir"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/stagebench" "$@"
