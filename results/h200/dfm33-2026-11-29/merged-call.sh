#!/usr/bin/env bash
# dfm33's part of the lead's merged call (source this file, then: dfm33_call BUNDLE_DIR OUT_DIR).
# Checks, in about 60 s of device commands once the programs are built: the NVIDIA op-table case
# of sum_axis1 (its long_axis cases launch sum_axis1_split; the short ones sum_axis1), then
# DeepFM full's best stage (autotune, which ends the Gram-FM dS fill too) with
# STAGEBENCH_SUM_AXIS1=split (the default) and then =items, --max-time 2 each. In the two JSONs
# the `opencl` block's kernels show sum_axis1_split x9 against sum_axis1 x9, and 121 commands a
# step in both.
dfm33_call() {
  local n=${1:?bundle dir} o=${2:?out dir}
  mkdir -p "$o"
  (. "$n/nvidia-opencl-env.sh" && nvidia_opencl_env "$n/lib" &&
    timeout -s INT 60 "$n/ops_test" \
      --gtest_filter='Backends/OpTable.MatchesTheReference/opencl_sum_axis1' \
      > "$o/dfm33-ops_test.txt" 2>&1)
  echo "dfm33 ops_test rc=$?"
  local k
  for k in split items; do
    STAGEBENCH_SUM_AXIS1=$k timeout -s INT 30 "$n/gpu-run.sh" run deepfm --size full \
      --backend opencl --stages autotune --max-time 2 --max-samples 300 \
      -o "$o/dfm33-deepfm-$k.json" > "$o/dfm33-deepfm-$k.log" 2>&1
    echo "dfm33 deepfm $k rc=$?"
  done
}
