# Sourced by the scripts that run on the GPU machine (gpu-run.sh, gpu-conv-igemm.sh,
# gpu-kernels.sh, wgmma-device.sh): NVIDIA's OpenCL is installed there but not registered with
# the ICD loader. nvidia_opencl_env LIBDIR registers it for this process and its children and puts
# the bundle's libraries (LIBDIR, scripts/gpu-bundle.sh) first on the library path.
nvidia_opencl_env() {
  local icd lib
  icd="$(mktemp -d)"
  lib=/usr/lib/libnvidia-opencl.so
  [ -e "$lib" ] || lib="$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* 2>/dev/null | head -n1 || true)"
  echo "$lib" > "$icd/nvidia.icd"
  export OCL_ICD_VENDORS="$icd"
  export LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
