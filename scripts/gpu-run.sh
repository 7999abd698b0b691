#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .gpu/ carried there by
# scripts/gpu-bundle.sh. NVIDIA's OpenCL is installed there but not registered with the ICD loader:
# register it for this process only, then run stagebench with the given arguments.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/nvidia-opencl-env.sh"
nvidia_opencl_env "$here/lib"
exec "$here/stagebench" "$@"
