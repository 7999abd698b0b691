#!/usr/bin/env bash
# A/B: the committed conv3d_igemm.cl against one with call 1's inline bound checks (cl-v1/), same binary.
set -uo pipefail
o="$OUT/ab"; mkdir -p "$o"; b="$PWD/build-conv-gpu/.gpu"
icd_dir="$(mktemp -d)"; lib=/usr/lib/libnvidia-opencl.so
[ -e "$lib" ] || lib="$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* 2>/dev/null | head -n1)"
echo "$lib" > "$icd_dir/nvidia.icd"; export OCL_ICD_VENDORS="$icd_dir" LD_LIBRARY_PATH="$b/lib"
for v in committed v1 committed2 v1b; do
  case $v in v1*) export STAGEBENCH_CL_SOURCE_DIR=$PWD/build-conv-gpu/cl-v1;; *) unset STAGEBENCH_CL_SOURCE_DIR;; esac
  timeout 120 "$b/conv3d_igemm_check" tf32 20 > "$o/$v.tsv" 2> "$o/$v.err"; echo "$v rc=$?"
done
paste <(cut -f1,5,6 "$o/committed.tsv") <(cut -f6 "$o/v1.tsv") <(cut -f6 "$o/committed2.tsv") <(cut -f6 "$o/v1b.tsv") | grep igemm | cut -c1-24,40-
tar czf "$OUT/ab.tar.gz" -C "$OUT" ab
