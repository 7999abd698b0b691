#!/usr/bin/env bash
# compare.sh BEFORE_TREE AFTER_TREE: both trees' tensor-core attention program through clang's
# nvptx back end (sm_80; clang 14 here), per kernel: identical PTX, or the instruction counts
# that differ. NVIDIA's compiler is another one: this shows the bodies produce the same code
# shape, the device's ptxas figures (ptxas.py on a STAGEBENCH_CL_BUILD_LOG=1 log) the rest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)" tmp="$(mktemp -d)"
cc() {
  clang -x cl -cl-std=CL1.2 -target nvptx64-nvidia-cuda -march=sm_80 -Xclang -finclude-default-header \
    -Xclang -cl-ext=+cl_khr_fp16 \
    -Dasm=__asm__ -DREDUCE_WG=256 -include "$here/stubs.h" -O3 -S "$1" -o "$2"
}
python3 "$here/gen.py" "$1" "$tmp/before.cl" && cc "$tmp/before.cl" "$tmp/before.ptx"
python3 "$here/gen.py" "$2" "$tmp/after.cl" && cc "$tmp/after.cl" "$tmp/after.ptx"
python3 "$here/cmp.py" "$tmp/before.ptx" "$tmp/after.ptx"
rm -rf "$tmp"
