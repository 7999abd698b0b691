# The device machine's preamble, sourced by scripts/gpu.sh, scripts/gpu-run.sh and
# scripts/wgmma-device.sh (and carried in bundles beside them): NVIDIA's OpenCL is installed there
# but not registered with the ICD loader.
#
# nvidia_opencl_env LIBDIR registers it for this process and its children and puts the bundle's
# libraries (LIBDIR, scripts/gpu-bundle.sh) first on the library path.
nvidia_opencl_env() {
  local icd lib
  icd="$(mktemp -d)"
  lib=/usr/lib/libnvidia-opencl.so
  [ -e "$lib" ] || lib="$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* 2>/dev/null | head -n1 || true)"
  echo "$lib" > "$icd/nvidia.icd"
  export OCL_ICD_VENDORS="$icd"
  export LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# gpu_facts FILE: the GPUs (name, driver, memory, clocks, power limit) and PyTorch's CUDA stack,
# the facts every session's results name.
gpu_facts() {
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit \
    --format=csv > "$1" 2>&1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' >> "$1" 2>&1
}

# gpu_clocks: each GPU's SM clock, its maximum, temperature and power draw on one line, logged at a
# session's start and end so that a clock that fell during the call is on record.
gpu_clocks() {
  nvidia-smi --query-gpu=index,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv,noheader 2>&1 | tr '\n' ';'
}
